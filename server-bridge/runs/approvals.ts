/**
 * Approvals in the store. The ladder asks through `approverFor(session)`: the request is written as a
 * leased `pending` row, announced on the session's event stream, and answered by `respond` (the
 * person's act) from this process or another one sharing the store (polled). Answers are single-use:
 * a second answer, or one to an unknown or settled id, is refused and changes nothing.
 */
import type { ApprovalAnswer, ApprovalOutcome, ApprovalRequest, Approver } from "../../shared/gate/approvals.ts";
import { CodedError } from "../../shared/protocol/errors.ts";
import type { Store } from "../store/db.ts";
import type { EventBus } from "./events.ts";

interface Waiter {
  resolve(outcome: ApprovalOutcome): void;
  hash: string;
}

type Status = ApprovalAnswer | "pending" | "timeout" | "cancelled";

export class ApprovalBroker {
  readonly #waiters = new Map<string, Waiter>();

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly owner: string,
    private readonly leaseMs: number,
    private readonly pollMs = 500,
  ) {}

  approverFor(session: { id: string; user_id: string }): Approver {
    return { ask: (request, signal) => this.#ask(session, request, signal) };
  }

  async #ask(
    session: { id: string; user_id: string },
    request: ApprovalRequest,
    signal: AbortSignal,
  ): Promise<ApprovalOutcome> {
    const at = Date.now();
    await this.store
      .sql(
        `INSERT INTO approvals (id, run_id, session_id, user_id, capability, category, request, hash, status, created_at, expires_at, lease_owner, lease_expires)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)`,
      )
      .run(
        request.approval_id,
        request.run_id,
        session.id,
        session.user_id,
        request.capability,
        request.category,
        JSON.stringify(request),
        request.hash,
        at,
        request.expires_at,
        this.owner,
        at + this.leaseMs,
      );
    this.bus.publish(session.id, { type: "approval_requested", approval: request });
    return new Promise<ApprovalOutcome>((resolve) => {
      let done = false;
      const finish = (outcome: ApprovalOutcome) => {
        if (done) return;
        done = true;
        clearInterval(poll);
        this.#waiters.delete(request.approval_id);
        resolve(outcome);
      };
      this.#waiters.set(request.approval_id, { resolve: finish, hash: request.hash });
      // An answer given through another process sharing the store reaches us by polling the row.
      const poll = setInterval(() => {
        this.#status(request.approval_id).then(
          (status) => {
            if (status && status !== "pending") {
              finish(
                status === "timeout" || status === "cancelled"
                  ? { kind: "timeout" }
                  : { kind: "answer", answer: status, approval_id: request.approval_id, hash: request.hash },
              );
            }
          },
          () => {}, // A busy or closing store: the next poll reads again.
        );
      }, this.pollMs);
      poll.unref?.();
      const stop = () => {
        // The gate stopped waiting: a still-pending row settles as timeout (or cancelled on run end).
        // A store that is closing leaves the row to its lapsing lease (recovery settles it).
        const status: Status = signal.reason === "timeout" ? "timeout" : "cancelled";
        this.#settle(session.id, request.approval_id, status)
          .catch(() => false)
          .finally(() => finish({ kind: "timeout" }));
      };
      // The row was written asynchronously: the gate may have stopped waiting meanwhile.
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    });
  }

  async #status(id: string): Promise<Status | undefined> {
    const row = (await this.store.sql("SELECT status FROM approvals WHERE id = ?").get(id)) as
      | { status: Status }
      | undefined;
    return row?.status;
  }

  /** Moves a pending row to `status`; false when it was not pending (already settled). */
  async #settle(sessionId: string, id: string, status: Exclude<Status, "pending">): Promise<boolean> {
    const result = await this.store
      .sql("UPDATE approvals SET status = ?, settled_at = ?, lease_owner = NULL WHERE id = ? AND status = 'pending'")
      .run(status, Date.now(), id);
    if (result.changes === 0) return false;
    this.bus.publish(sessionId, { type: "approval_settled", approval_id: id, status });
    return true;
  }

  /**
   * The person's answer. Refused, changing nothing, for an unknown, foreign or already settled id.
   * An approval whose asker is gone (this process has no waiter for it, or the process that asked
   * stopped renewing its lease) is settled as a timeout and refused with `run_ended`: an answer
   * nobody will act on is never reported as taken.
   */
  async respond(
    userId: string,
    approvalId: string,
    answer: ApprovalAnswer,
  ): Promise<{ approvalId: string; status: ApprovalAnswer }> {
    const row = (await this.store
      .sql("SELECT session_id, user_id, status, hash, lease_owner, lease_expires FROM approvals WHERE id = ?")
      .get(approvalId)) as
      | {
          session_id: string;
          user_id: string;
          status: Status;
          hash: string;
          lease_owner: string | null;
          lease_expires: number | null;
        }
      | undefined;
    if (!row || row.user_id !== userId) {
      throw new CodedError({
        code: "unauthorized",
        message: `There is no approval "${approvalId}" for you to answer.`,
      });
    }
    const asked =
      row.lease_owner === this.owner ? this.#waiters.has(approvalId) : (row.lease_expires ?? 0) >= Date.now();
    if (row.status === "pending" && !asked) {
      await this.#settle(row.session_id, approvalId, "timeout");
      throw new CodedError({
        code: "run_ended",
        message: `Approval "${approvalId}" has no one waiting for it any more (the action that asked has stopped), so nothing was run. Ask the agent to try again.`,
      });
    }
    if (row.status !== "pending" || !(await this.#settle(row.session_id, approvalId, answer))) {
      throw new CodedError({
        code: "invalid_call",
        message: `Approval "${approvalId}" is already settled (${row.status}); an approval is answered once.`,
      });
    }
    this.#waiters.get(approvalId)?.resolve({ kind: "answer", answer, approval_id: approvalId, hash: row.hash });
    return { approvalId, status: answer };
  }

  /** Pending approvals of a session, oldest first: replayed on every event-stream (re)connect. */
  async pending(sessionId: string): Promise<ApprovalRequest[]> {
    const rows = (await this.store
      .sql("SELECT request FROM approvals WHERE session_id = ? AND status = 'pending' ORDER BY created_at")
      .all(sessionId)) as { request: string }[];
    return rows.map((r) => JSON.parse(r.request) as ApprovalRequest);
  }

  /** Settles a run's pending approvals when the run ends. */
  async cancelForRun(runId: string): Promise<void> {
    const rows = (await this.store
      .sql("SELECT id, session_id FROM approvals WHERE run_id = ? AND status = 'pending'")
      .all(runId)) as { id: string; session_id: string }[];
    for (const row of rows) {
      if (await this.#settle(row.session_id, row.id, "cancelled"))
        this.#waiters.get(row.id)?.resolve({ kind: "timeout" });
    }
  }
}
