/**
 * Settling live rows whose lease expired (DESIGN.md section 8b): pending approvals as timeouts, runs
 * as expired, jobs as failed with the reason. Run at start and then by every process's lease keeper
 * (runs/leases.ts) while it lives, so a process that stopped leaves nothing hanging for longer than a
 * lease, and a process that is still running (renewing its leases) is never disturbed. A process
 * never sweeps its own rows (`except`): it renews them, and a late timer tick must not end them.
 */
import { JOB_COLUMNS, type JobRow } from "../engine/job-store.ts";
import { settleRow } from "../engine/live-job.ts";
import type { Store } from "../store/db.ts";

export const JOB_LOST =
  "The process running this job stopped before it finished (its lease expired), so the job was not completed and will not resume. Start it again with workflows.start.";

export const RUN_LOST = "the process serving it stopped";

export interface Settled {
  approvals: { id: string; session_id: string; user_id: string }[];
  runs: { id: string; session_id: string }[];
  jobs: { id: string; session_id: string }[];
}

export async function recoverExpiredLeases(
  store: Store,
  options: { at?: number; except?: string } = {},
): Promise<Settled> {
  const at = options.at ?? Date.now();
  const except = options.except ?? null;
  const expired =
    "(lease_expires IS NULL OR lease_expires < ?) AND (CAST(? AS TEXT) IS NULL OR lease_owner IS NULL OR lease_owner != ?)";
  return await store.tx(async () => {
    const approvals = (await store
      .sql(`SELECT id, session_id, user_id FROM approvals WHERE status = 'pending' AND ${expired}`)
      .all(at, except, except)) as Settled["approvals"];
    const timeout = store.sql(
      "UPDATE approvals SET status = 'timeout', settled_at = ?, lease_owner = NULL WHERE id = ? AND status = 'pending'",
    );
    for (const { id } of approvals) await timeout.run(at, id);
    const runs = (await store
      .sql(`SELECT id, session_id FROM runs WHERE status = 'running' AND ${expired}`)
      .all(at, except, except)) as Settled["runs"];
    const end = store.sql(
      "UPDATE runs SET status = 'expired', ended_at = ?, end_reason = ?, lease_owner = NULL WHERE id = ? AND status = 'running'",
    );
    const drop = store.sql("DELETE FROM shared_results WHERE run_id = ?");
    for (const { id } of runs) {
      await end.run(at, RUN_LOST, id);
      await drop.run(id);
    }
    const lostJobs = (await store
      .sql(`SELECT ${JOB_COLUMNS} FROM jobs WHERE status IN ('queued', 'running') AND ${expired}`)
      .all(at, except, except)) as JobRow[];
    for (const row of lostJobs) await settleRow(store, row, "failed", { code: "run_ended", message: JOB_LOST });
    return { approvals, runs, jobs: lostJobs.map((row) => ({ id: row.id, session_id: row.session_id })) };
  });
}
