/** A workflow's earlier versions (SQLite migration 010), in Postgres. */
export const workflowVersions = `
CREATE TABLE workflow_versions (
  workflow_id TEXT NOT NULL REFERENCES workflows(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  graph TEXT NOT NULL,
  node_count INTEGER NOT NULL,
  edge_count INTEGER NOT NULL,
  saved_at BIGINT NOT NULL,
  PRIMARY KEY (workflow_id, version)
);
`;
