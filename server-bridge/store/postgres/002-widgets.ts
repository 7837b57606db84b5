/** Embeddable widgets (SQLite migration 007), in Postgres's types. */
export const widgets = `
CREATE TABLE widgets (
  id TEXT PRIMARY KEY,
  owner_id TEXT NOT NULL REFERENCES users(id),
  user_id TEXT NOT NULL REFERENCES users(id),
  origins TEXT NOT NULL,
  modules TEXT NOT NULL,
  max_mode TEXT NOT NULL CHECK (max_mode IN ('plan', 'default', 'auto')),
  max_actions INTEGER NOT NULL CHECK (max_actions > 0),
  calls_per_minute INTEGER NOT NULL CHECK (calls_per_minute > 0),
  mint_key_hash TEXT UNIQUE,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT,
  CHECK ((revoked_at IS NULL) = (mint_key_hash IS NOT NULL))
);
CREATE INDEX widgets_owner ON widgets(owner_id, created_at);

CREATE TABLE widget_tokens (
  token_hash TEXT PRIMARY KEY,
  widget_id TEXT NOT NULL REFERENCES widgets(id),
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  exchanged_at BIGINT
);
CREATE INDEX widget_tokens_widget ON widget_tokens(widget_id);
CREATE INDEX widget_tokens_expiry ON widget_tokens(expires_at);

CREATE TABLE widget_credentials (
  id TEXT PRIMARY KEY,
  credential_hash TEXT NOT NULL UNIQUE,
  widget_id TEXT NOT NULL REFERENCES widgets(id),
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX widget_credentials_widget ON widget_credentials(widget_id);

ALTER TABLE sessions ADD COLUMN widget_id TEXT REFERENCES widgets(id);
CREATE INDEX sessions_widget ON sessions(widget_id) WHERE widget_id IS NOT NULL;
`;
