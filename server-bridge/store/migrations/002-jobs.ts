/**
 * Jobs: one row per workflow run. A live job (queued or running) is leased by the process running it,
 * which renews the lease; recovery settles only expired leases, as failed with the reason. `run_id` is
 * the job-scoped run its effects go through; `cancel_requested` lets another process sharing the store
 * ask the owner to stop it.
 */
export const jobs = `
CREATE TABLE jobs (
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
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  ended_at INTEGER,
  lease_owner TEXT,
  lease_expires INTEGER
);
CREATE INDEX jobs_user ON jobs(user_id, created_at);
CREATE INDEX jobs_live ON jobs(status, lease_expires);
`;
