/**
 * A workflow's earlier versions: every update keeps the version it replaces (its name, description and
 * graph), so a change an agent or another tab made can be looked at and undone later. The newest
 * `VERSIONS_KEPT` of a workflow stay; they go with it.
 */
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
  saved_at INTEGER NOT NULL,
  PRIMARY KEY (workflow_id, version)
);
`;
