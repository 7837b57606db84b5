/**
 * Start-up recovery (DESIGN.md section 8b): settles only live rows whose lease has expired, so a
 * process that stopped leaves nothing hanging, and a process that is still running is not disturbed.
 */
import type { Store } from "../store/db.ts";

export function recoverExpiredLeases(store: Store, at = Date.now()): { approvals: number; runs: number } {
  return store.tx(() => {
    const approvals = store.db
      .prepare(
        "UPDATE approvals SET status = 'timeout', settled_at = ?, lease_owner = NULL WHERE status = 'pending' AND (lease_expires IS NULL OR lease_expires < ?)",
      )
      .run(at, at).changes;
    const expired = store.db
      .prepare("SELECT id FROM runs WHERE status = 'running' AND (lease_expires IS NULL OR lease_expires < ?)")
      .all(at) as { id: string }[];
    const end = store.db.prepare(
      "UPDATE runs SET status = 'expired', ended_at = ?, end_reason = 'the process serving it stopped', lease_owner = NULL WHERE id = ?",
    );
    const drop = store.db.prepare("DELETE FROM shared_results WHERE run_id = ?");
    for (const { id } of expired) {
      end.run(at, id);
      drop.run(id);
    }
    return { approvals, runs: expired.length };
  });
}
