/**
 * Approvals in the store. The ladder asks through `approverFor(session)`: the request is written as a
 * leased `pending` row, announced on the session's event stream (and signalled to the other servers
 * sharing the store), and answered by `respond` (the person's act) from this process or another one.
 * An answer recorded elsewhere wakes the waiter here by its signal (`signalled`: the row is re-read,
 * never the notification trusted), after a lost listener connection by `resync`, and failing both by
 * a poll of the row (every `pollMs`: slow where signals cross processes). Answers are single-use: a
 * second answer, or one to an unknown or settled id, is refused and changes nothing.
 */
import {
  type ApprovalAnswer,
  type ApprovalOutcome,
  ApprovalRequest,
  type Approver,
} from "../../shared/gate/approvals.ts";
import { CodedError } from "../../shared/protocol/errors.ts";
import type { Store } from "../store/db.ts";
import type { Relay } from "./relay.ts";

/** The session an approver asks for: a script's (`asker`) is asked in its user's signed-in pages. */
export interface AskingSession {
  id: string;
  user_id: string;
  asker?: "script" | null;
}

interface Waiter {
  resolve(outcome: ApprovalOutcome): void;
  hash: string;
  sessionId: string;
  userId: string;
}

/** The waiter's poll of its row when signals cross processes (a safety net), and when they do not. */
export const SAFETY_POLL_MS = 5000;
export const LOCAL_POLL_MS = 500;

type Status = ApprovalAnswer | "pending" | "timeout" | "cancelled";

interface ApprovalRow {
  session_id: string;
  user_id: string;
  status: Status;
  hash: string;
  request: string;
  lease_owner: string | null;
  lease_expires: number | null;
}

export class ApprovalBroker {
  readonly #waiters = new Map<string, Waiter>();

  constructor(
    private readonly store: Store,
    private readonly relay: Relay,
    private readonly owner: string,
    private readonly leaseMs: number,
    private readonly pollMs = store.signals.crossProcess ? SAFETY_POLL_MS : LOCAL_POLL_MS,
  ) {}

  approverFor(session: AskingSession): Approver {
    return { ask: (request, signal) => this.#ask(session, request, signal) };
  }

  async #ask(session: AskingSession, asked: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome> {
    // A script's approval is shown in its user's signed-in pages, saying a script asks.
    const script = session.asker === "script";
    const request: ApprovalRequest = script ? { ...asked, from: "script" } : asked;
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
    this.relay.announce(
      "approval",
      request.approval_id,
      session.id,
      { type: "approval_requested", approval: request },
      script ? session.user_id : undefined,
    );
    return new Promise<ApprovalOutcome>((resolve) => {
      let done = false;
      const finish = (outcome: ApprovalOutcome) => {
        if (done) return;
        done = true;
        clearInterval(poll);
        this.#waiters.delete(request.approval_id);
        resolve(outcome);
      };
      this.#waiters.set(request.approval_id, {
        resolve: finish,
        hash: request.hash,
        sessionId: session.id,
        userId: session.user_id,
      });
      const poll = setInterval(() => {
        this.#check(request.approval_id).catch(() => {}); // A busy or closing store: the next poll reads again.
      }, this.pollMs);
      poll.unref?.();
      const stop = () => {
        // The gate stopped waiting: a still-pending row settles as timeout (or cancelled on run end).
        // A store that is closing leaves the row to its lapsing lease (recovery settles it).
        const status: Status = signal.reason === "timeout" ? "timeout" : "cancelled";
        this.#settle(session, request.approval_id, status)
          .catch(() => false)
          .finally(() => finish({ kind: "timeout" }));
      };
      // The row was written asynchronously: the gate may have stopped waiting meanwhile.
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    });
  }

  /** Wakes the waiter of `id` when its row says it was settled (by whichever process). */
  async #check(id: string): Promise<void> {
    const row = await this.#row(id);
    const waiter = this.#waiters.get(id);
    if (row && waiter && row.status !== "pending") this.#wake(waiter, id, row);
  }

  #row(id: string): Promise<ApprovalRow | undefined> {
    return this.store
      .sql("SELECT session_id, user_id, status, hash, request, lease_owner, lease_expires FROM approvals WHERE id = ?")
      .get(id) as Promise<ApprovalRow | undefined>;
  }

  /** Resolves a waiter with its settled row's outcome, if the row is the one it asked for. */
  #wake(waiter: Waiter, id: string, row: ApprovalRow): boolean {
    if (row.hash !== waiter.hash || row.session_id !== waiter.sessionId || row.user_id !== waiter.userId) return false;
    waiter.resolve(
      row.status === "timeout" || row.status === "cancelled" || row.status === "pending"
        ? { kind: "timeout" }
        : { kind: "answer", answer: row.status, approval_id: id, hash: row.hash },
    );
    return true;
  }

  /**
   * The `approval` signal: the row is re-read; a waiter here wakes if it was settled elsewhere, and
   * this process's pages are shown what the row says (asked, or settled) unless they were already.
   */
  async signalled(id: string): Promise<string | undefined> {
    const row = await this.#row(id);
    if (!row) return "no such approval in this store";
    const waiter = this.#waiters.get(id);
    if (row.status === "pending") {
      const request = ApprovalRequest.safeParse(JSON.parse(row.request));
      if (!request.success || request.data.approval_id !== id) return "its stored request does not parse";
      const person = request.data.from === "script" ? row.user_id : undefined;
      this.relay.relay("approval", id, row.session_id, { type: "approval_requested", approval: request.data }, person);
      return undefined;
    }
    if (waiter && !this.#wake(waiter, id, row)) return "its row does not match the request waiting here";
    const settled = { type: "approval_settled", approval_id: id, status: row.status } as const;
    this.relay.relay("approval", id, row.session_id, settled, row.user_id);
    return undefined;
  }

  /** After lost notifications: every waiter here re-reads its row. */
  async resync(): Promise<void> {
    await Promise.all([...this.#waiters.keys()].map((id) => this.#check(id)));
  }

  /**
   * Moves a pending row to `status`; false when it was not pending (already settled). The settlement
   * also reaches the user's signed-in pages, which may be showing it (a script's; others ignore it).
   */
  async #settle(
    session: { id: string; user_id: string },
    id: string,
    status: Exclude<Status, "pending">,
  ): Promise<boolean> {
    const result = await this.store
      .sql("UPDATE approvals SET status = ?, settled_at = ?, lease_owner = NULL WHERE id = ? AND status = 'pending'")
      .run(status, Date.now(), id);
    if (result.changes === 0) return false;
    this.relay.announce(
      "approval",
      id,
      session.id,
      { type: "approval_settled", approval_id: id, status },
      session.user_id,
    );
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
    const row = await this.#row(approvalId);
    if (!row || row.user_id !== userId) {
      throw new CodedError({
        code: "unauthorized",
        message: `There is no approval "${approvalId}" for you to answer.`,
      });
    }
    const asked =
      row.lease_owner === this.owner ? this.#waiters.has(approvalId) : (row.lease_expires ?? 0) >= Date.now();
    if (row.status === "pending" && !asked) {
      await this.#settle({ id: row.session_id, user_id: row.user_id }, approvalId, "timeout");
      throw new CodedError({
        code: "run_ended",
        message: `Approval "${approvalId}" has no one waiting for it any more (the action that asked has stopped), so nothing was run. Ask the agent to try again.`,
      });
    }
    if (
      row.status !== "pending" ||
      !(await this.#settle({ id: row.session_id, user_id: row.user_id }, approvalId, answer))
    ) {
      throw new CodedError({
        code: "invalid_call",
        message: `Approval "${approvalId}" is already settled (${row.status}); an approval is answered once.`,
      });
    }
    this.#waiters.get(approvalId)?.resolve({ kind: "answer", answer, approval_id: approvalId, hash: row.hash });
    return { approvalId, status: answer };
  }

  /** Pending approvals of the user's scripts' sessions, oldest first: replayed to a signed-in page on (re)connect. */
  async pendingFromScripts(userId: string): Promise<ApprovalRequest[]> {
    const rows = (await this.store
      .sql(
        `SELECT a.request FROM approvals a JOIN sessions s ON s.id = a.session_id
         WHERE a.user_id = ? AND a.status = 'pending' AND s.asker = 'script' ORDER BY a.created_at`,
      )
      .all(userId)) as { request: string }[];
    return rows.map((r) => JSON.parse(r.request) as ApprovalRequest);
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
      .sql("SELECT id, session_id, user_id FROM approvals WHERE run_id = ? AND status = 'pending'")
      .all(runId)) as { id: string; session_id: string; user_id: string }[];
    for (const row of rows) {
      if (await this.#settle({ id: row.session_id, user_id: row.user_id }, row.id, "cancelled"))
        this.#waiters.get(row.id)?.resolve({ kind: "timeout" });
    }
  }
}
