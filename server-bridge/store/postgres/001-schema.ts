/**
 * The Postgres schema: the tables of SQLite migrations 001-006 as they stand after them, in Postgres's
 * types (milliseconds as BIGINT, JSON kept as TEXT exactly as SQLite keeps it, so both read the same).
 * Full-text search is Postgres's own: a generated `tsvector` column with a GIN index, where SQLite has
 * FTS5 tables. `rowid` is a column here (a sequence), so the orderings SQLite writes with its implicit
 * rowid read the same; `instr` is defined for the same reason.
 */
export const schema = `
CREATE FUNCTION instr(haystack TEXT, needle TEXT) RETURNS INTEGER
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT strpos(haystack, needle)';

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE TABLE api_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  scope TEXT NOT NULL CHECK (scope IN ('admin', 'api', 'mcp')),
  name TEXT CHECK ((scope = 'api') = (name IS NOT NULL)),
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX api_tokens_name ON api_tokens(user_id, name) WHERE name IS NOT NULL;

CREATE TABLE logins (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  mode TEXT NOT NULL CHECK (mode IN ('plan', 'default', 'auto')),
  allow_set TEXT NOT NULL DEFAULT '[]',
  modules TEXT NOT NULL,
  packs TEXT NOT NULL DEFAULT '[]',
  created_at BIGINT NOT NULL
);

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  user_id TEXT NOT NULL REFERENCES users(id),
  status TEXT NOT NULL CHECK (status IN ('running', 'ended', 'cancelled', 'expired')),
  started_at BIGINT NOT NULL,
  ended_at BIGINT,
  end_reason TEXT,
  max_until BIGINT NOT NULL,
  lease_owner TEXT,
  lease_expires BIGINT
);
CREATE INDEX runs_live ON runs(status, lease_expires);

CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id),
  session_id TEXT NOT NULL REFERENCES sessions(id),
  user_id TEXT NOT NULL REFERENCES users(id),
  capability TEXT NOT NULL,
  category TEXT NOT NULL,
  request TEXT NOT NULL,
  hash TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'allow', 'allow_for_session', 'deny', 'timeout', 'cancelled')),
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  settled_at BIGINT,
  lease_owner TEXT,
  lease_expires BIGINT
);
CREATE INDEX approvals_pending ON approvals(session_id, status);

CREATE TABLE audit (
  id BIGSERIAL PRIMARY KEY,
  at BIGINT NOT NULL,
  actor TEXT NOT NULL,
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  capability TEXT NOT NULL,
  category TEXT,
  decision TEXT NOT NULL,
  outcome TEXT NOT NULL,
  duration_ms DOUBLE PRECISION NOT NULL,
  waited_ms DOUBLE PRECISION NOT NULL
);
CREATE INDEX audit_run ON audit(run_id);

CREATE TABLE workflows (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  graph TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX workflows_user ON workflows(user_id, updated_at);

CREATE TABLE memories (
  rowid BIGSERIAL UNIQUE,
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  content TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  created_at BIGINT NOT NULL,
  search TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', content || ' ' || tags)) STORED
);
CREATE INDEX memories_user ON memories(user_id, created_at);
CREATE INDEX memories_search ON memories USING GIN (search);

CREATE TABLE shared_results (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  size INTEGER NOT NULL,
  shared_at BIGINT NOT NULL,
  PRIMARY KEY (run_id, key)
);

CREATE TABLE jobs (
  rowid BIGSERIAL UNIQUE,
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  session_id TEXT NOT NULL REFERENCES sessions(id),
  started_by TEXT,
  run_id TEXT,
  workflow_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  graph TEXT NOT NULL,
  inputs TEXT NOT NULL DEFAULT '{}',
  outputs TEXT,
  nodes TEXT NOT NULL DEFAULT '{}',
  error TEXT,
  done INTEGER NOT NULL DEFAULT 0,
  total INTEGER NOT NULL,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  started_at BIGINT,
  ended_at BIGINT,
  lease_owner TEXT,
  lease_expires BIGINT
);
CREATE INDEX jobs_user ON jobs(user_id, created_at);
CREATE INDEX jobs_live ON jobs(status, lease_expires);

CREATE TABLE assets (
  rowid BIGSERIAL UNIQUE,
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('image', 'text', 'binary')),
  size BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  width INTEGER,
  height INTEGER,
  created_at BIGINT NOT NULL
);
CREATE INDEX assets_user ON assets(user_id, created_at);
CREATE INDEX assets_sha ON assets(sha256);

CREATE TABLE collections (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  UNIQUE (user_id, name)
);

CREATE TABLE collection_chunks (
  id BIGSERIAL PRIMARY KEY,
  collection_id TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  document_id TEXT NOT NULL,
  chunk_index INTEGER NOT NULL,
  text TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL,
  search TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
  UNIQUE (collection_id, document_id, chunk_index)
);
CREATE INDEX collection_chunks_search ON collection_chunks USING GIN (search);

CREATE TABLE agent_threads (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  title TEXT NOT NULL,
  model TEXT,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX agent_threads_user ON agent_threads(user_id, updated_at);

CREATE TABLE agent_messages (
  thread_id TEXT NOT NULL REFERENCES agent_threads(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (thread_id, seq)
);

CREATE TABLE agent_usage (
  user_id TEXT NOT NULL REFERENCES users(id),
  day TEXT NOT NULL,
  tokens BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, day)
);
`;
