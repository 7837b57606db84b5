/**
 * API tokens (scope `api`: they open the API and cannot sign a browser in), named per user so they
 * can be listed and revoked. SQLite cannot change a CHECK constraint in place, so the table is
 * rebuilt with the new scope and a `name` (set for API tokens only, unique per user).
 */
export const apiTokens = `
CREATE TABLE api_tokens_next (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  scope TEXT NOT NULL CHECK (scope IN ('admin', 'api', 'mcp')),
  name TEXT CHECK ((scope = 'api') = (name IS NOT NULL)),
  created_at INTEGER NOT NULL
);
INSERT INTO api_tokens_next (token_hash, user_id, scope, created_at)
  SELECT token_hash, user_id, scope, created_at FROM api_tokens;
DROP TABLE api_tokens;
ALTER TABLE api_tokens_next RENAME TO api_tokens;
CREATE UNIQUE INDEX api_tokens_name ON api_tokens(user_id, name) WHERE name IS NOT NULL;
`;
