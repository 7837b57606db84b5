/**
 * The lease keeper of one process: every third of `LEASE_MS` it renews the leases of the live rows
 * this process owns and settles the rows of processes that stopped renewing theirs (runs/recovery.ts),
 * announcing each settlement on the session's event stream (and to the other servers sharing the
 * store), so a page stops showing an approval nobody is waiting for. The server, stdio MCP and the action CLI each keep one while they live.
 */
import type { AppServices } from "../app-services.ts";
import { JOB_LOST, recoverExpiredLeases, type Settled } from "./recovery.ts";

export interface LeaseKeeper extends Disposable {
  /** One renewal and sweep now (the timer does the same). */
  tick(): Promise<Settled>;
  dispose(): void;
}

type Services = Pick<AppServices, "owner" | "store" | "relay" | "runs" | "config" | "log">;

/** Each settlement on this process's pages, and signalled to the other servers' (and to a live owner's). */
export function announce(app: Pick<AppServices, "relay">, settled: Settled): void {
  for (const row of settled.approvals) {
    const settled = { type: "approval_settled", approval_id: row.id, status: "timeout" } as const;
    app.relay.announce("approval", row.id, row.session_id, settled, row.user_id);
  }
  for (const row of settled.runs)
    app.relay.announce("run", row.id, row.session_id, { type: "run_ended", run_id: row.id, reason: "expired" });
  for (const row of settled.jobs) {
    app.relay.announce("job", row.id, row.session_id, {
      type: "job_ended",
      job_id: row.id,
      status: "failed",
      error: { code: "run_ended", message: JOB_LOST },
    });
  }
}

export function keepLeases(app: Services): LeaseKeeper {
  let ticking = false;
  const tick = async (): Promise<Settled> => {
    await app.runs.renewLeases();
    const settled = await recoverExpiredLeases(app.store, { except: app.owner });
    announce(app, settled);
    return settled;
  };
  const timer = setInterval(
    () => {
      // One tick at a time: a slow store makes the next one wait, never pile up.
      if (ticking || !app.store.open) return;
      ticking = true;
      tick()
        .catch((err: unknown) => {
          // A busy store (another process holding the write lock past the busy timeout): next tick.
          app.log("warn", "lease keeping failed; retrying on the next tick", err);
        })
        .finally(() => {
          ticking = false;
        });
    },
    Math.max(100, Math.floor(app.config.leaseMs / 3)),
  );
  timer.unref();
  const dispose = () => clearInterval(timer);
  return { tick, dispose, [Symbol.dispose]: dispose };
}
