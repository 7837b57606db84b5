/**
 * Start-up recovery (DESIGN.md section 8b): settles only live rows whose lease has expired (pending
 * approvals as timeouts, runs as expired, jobs as failed with the reason), so a
 * process that stopped leaves nothing hanging, and a process that is still running is not disturbed.
 */
import { JOB_COLUMNS, type JobRow } from "../engine/job-store.ts";
import { settleRow } from "../engine/live-job.ts";
import type { Store } from "../store/db.ts";

const JOB_LOST =
  "The process running this job stopped before it finished (its lease expired), so the job was not completed and will not resume. Start it again with workflows.start.";

export function recoverExpiredLeases(store: Store, at = Date.now()): { approvals: number; runs: number; jobs: number } {
  return store.tx(() => {
    const approvals = store
      .sql(
        "UPDATE approvals SET status = 'timeout', settled_at = ?, lease_owner = NULL WHERE status = 'pending' AND (lease_expires IS NULL OR lease_expires < ?)",
      )
      .run(at, at).changes;
    const expired = store
      .sql("SELECT id FROM runs WHERE status = 'running' AND (lease_expires IS NULL OR lease_expires < ?)")
      .all(at) as { id: string }[];
    const end = store.sql(
      "UPDATE runs SET status = 'expired', ended_at = ?, end_reason = 'the process serving it stopped', lease_owner = NULL WHERE id = ?",
    );
    const drop = store.sql("DELETE FROM shared_results WHERE run_id = ?");
    for (const { id } of expired) {
      end.run(at, id);
      drop.run(id);
    }
    const lostJobs = store
      .sql(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE status IN ('queued', 'running') AND (lease_expires IS NULL OR lease_expires < ?)`,
      )
      .all(at) as JobRow[];
    for (const row of lostJobs) settleRow(store, row, "failed", { code: "run_ended", message: JOB_LOST });
    return { approvals, runs: expired.length, jobs: lostJobs.length };
  });
}
