/**
 * Runs: one CapabilityRun per agent run, leased in the store by this process: their life (start, end,
 * expiry, leases) and `invoke`, the entrance for `run.invoke` over HTTP and the page's socket. The
 * call itself goes through the one call router (calls/router.ts); idempotency and the hold are in
 * held-calls.ts, the `ui` path (authorize, complete, startJob) in ui-calls.ts.
 */
import { moduleOf } from "../../shared/capabilities/table.ts";
import type { Actor, AnySpec, InvokeResult, Mode } from "../../shared/capabilities/types.ts";
import type { Approver } from "../../shared/gate/approvals.ts";
import { canonicalJson, newId } from "../../shared/gate/approvals.ts";
import type { Gate } from "../../shared/gate/gate.ts";
import { type Authorization, type CapabilityRun, createRun } from "../../shared/gate/invoke.ts";
import { CodedError, failure } from "../../shared/protocol/errors.ts";
import type { InvokeAnswer } from "../../shared/protocol/server.ts";
import { type CallRouter, callRouter, serveCall } from "../calls/router.ts";
import type { ServerServices } from "../capabilities/define.ts";
import { OUTPUT_CHECK } from "../capabilities/output-check.ts";
import { loadNamespace } from "../capabilities/registry.ts";
import { defaultLibrary } from "../packs/index.ts";
import type { AuditLog } from "../store/audit.ts";
import type { Store } from "../store/db.ts";
import type { ApprovalBroker } from "./approvals.ts";
import { callOnce, type HeldCalls } from "./held-calls.ts";
import { namedArgs } from "./named-args.ts";
import type { Relay } from "./relay.ts";
import type { Sessions } from "./sessions.ts";

export interface RunsConfig {
  owner: string;
  leaseMs: number;
  holdMs: number;
  approvalTimeoutMs: number;
  runMaxMs: number;
  maxCallsPerRun: number;
}

export interface LiveRun extends HeldCalls {
  readonly id: string;
  readonly sessionId: string;
  readonly userId: string;
  /** The widget whose session it runs in, if any (its limits count it; revoking the widget ends it). */
  readonly widgetId: string | null;
  readonly run: CapabilityRun<ServerServices>;
  readonly mounted: readonly string[];
  readonly packs: readonly string[];
  /** Its calls' dispatch: the session's mounted modules and allowed packs. */
  readonly router: CallRouter;
  readonly controller: AbortController;
  /** `ui` calls the gate let through, waiting for the page's `run.complete`. */
  readonly authorized: Map<
    string,
    Authorization & { actor: Actor; started: number; waited: number /** ui_run_workflow: its job. */; jobId?: string }
  >;
  timer: ReturnType<typeof setTimeout>;
}

export class Runs {
  readonly #live = new Map<string, LiveRun>();

  constructor(
    private readonly store: Store,
    private readonly sessions: Sessions,
    private readonly approvals: ApprovalBroker,
    private readonly relay: Relay,
    private readonly audit: AuditLog,
    private readonly config: RunsConfig,
    private readonly logError: (capability: string, err: unknown) => void,
    /** Services beyond the store that every run hands its implementations (the job engine). */
    private readonly services: Omit<ServerServices, "store"> = {},
  ) {}

  /**
   * Starts a run in a session. Its gate is the session's store-backed one (mode, allow-set) asking
   * `approver` (default: the person in the browser, through the approval broker); `gate` replaces it
   * whole (the headless gate of a CLI run without a mode).
   */
  async start(
    userId: string,
    sessionId: string,
    options: {
      gate?: Gate;
      approver?: Approver;
      editor?: boolean;
      threadId?: string | undefined;
      /** The highest mode the session may be switched to (a widget's), when it is capped. */
      highestMode?: Mode | undefined;
    } = {},
  ): Promise<LiveRun> {
    const session = await this.sessions.require(userId, sessionId);
    const id = newId("run");
    const at = Date.now();
    await this.store
      .sql(
        `INSERT INTO runs (id, session_id, user_id, status, started_at, max_until, lease_owner, lease_expires)
         VALUES (?, ?, ?, 'running', ?, ?, ?, ?)`,
      )
      .run(id, sessionId, userId, at, at + this.config.runMaxMs, this.config.owner, at + this.config.leaseMs);
    const controller = new AbortController();
    const gate: Gate = options.gate ?? {
      mode: () => this.sessions.mode(sessionId),
      allowSet: this.sessions.allowSet(sessionId),
      approver: options.approver ?? this.approvals.approverFor(session),
      approvalTimeoutMs: this.config.approvalTimeoutMs,
      highestMode: options.highestMode,
      named: namedArgs(this.store, userId),
    };
    const run = createRun<ServerServices>({
      context: {
        user_id: userId,
        session_id: sessionId,
        run_id: id,
        thread_id: options.threadId,
        signal: controller.signal,
      },
      gate,
      services: { ...this.services, store: this.store },
      // A page with an open editor serves `ui` calls itself (after run.authorize): the run has a client.
      provides: [
        ...(options.editor ? ["client" as const] : []),
        ...(this.services.agent?.models.configured() ? ["providers" as const] : []),
      ],
      loadImpl: (spec) => loadImpl(spec),
      audit: (record) => this.audit.write(userId, record),
      logError: this.logError,
      ...(OUTPUT_CHECK ? { outputCheck: OUTPUT_CHECK } : {}),
    });
    const mounted = JSON.parse(session.modules) as string[];
    const packs = JSON.parse(session.packs) as string[];
    const live: LiveRun = {
      id,
      sessionId,
      userId,
      widgetId: session.widget_id,
      run,
      mounted,
      packs,
      router: callRouter({ run, mounted, library: defaultLibrary(), allowedPacks: packs }),
      controller,
      calls: new Map(),
      authorized: new Map(),
      callCount: 0,
      timer: setTimeout(() => {
        this.end(userId, id, "expired").catch((err: unknown) => this.logError("run expiry", err));
      }, this.config.runMaxMs),
    };
    live.timer.unref?.();
    this.#live.set(id, live);
    return live;
  }

  /**
   * Ends a run: aborts what waits on it, settles its approvals, drops its shared results. A run another
   * server holds live is ended in the store, and its server, told by the run's signal, stops it there.
   */
  async end(
    userId: string,
    runId: string,
    reason: "ended" | "cancelled" | "expired" = "ended",
  ): Promise<{ runId: string; status: string }> {
    const live = this.#live.get(runId);
    const row = await this.#row(runId);
    if (!row || row.user_id !== userId) {
      throw new CodedError({ code: "unauthorized", message: `Run "${runId}" does not exist or is not yours.` });
    }
    if (row.status !== "running") {
      // Settled already (by another process, after this one's lease lapsed): what still waits here stops.
      if (live) this.#drop(live, row.status);
      this.relay.relay("run", runId, row.session_id, { type: "run_ended", run_id: runId, reason: row.status });
      return { runId, status: row.status };
    }
    await this.store.tx(async () => {
      await this.store
        .sql(
          "UPDATE runs SET status = ?, ended_at = ?, end_reason = ?, lease_owner = NULL WHERE id = ? AND status = 'running'",
        )
        .run(reason, Date.now(), reason, runId);
      await this.store.sql("DELETE FROM shared_results WHERE run_id = ?").run(runId);
    });
    if (live) this.#drop(live, reason);
    this.relay.announce("run", runId, row.session_id, { type: "run_ended", run_id: runId, reason });
    await this.approvals.cancelForRun(runId);
    return { runId, status: reason };
  }

  #row(runId: string): Promise<{ user_id: string; session_id: string; status: string } | undefined> {
    return this.store.sql("SELECT user_id, session_id, status FROM runs WHERE id = ?").get(runId) as Promise<
      { user_id: string; session_id: string; status: string } | undefined
    >;
  }

  /** Forgets a live run: its waits abort (its session hears that it ended from the caller). */
  #drop(live: LiveRun, reason: string): void {
    clearTimeout(live.timer);
    live.controller.abort(reason);
    this.#live.delete(live.id);
  }

  /**
   * The `run` signal: the row is re-read; a run that ended elsewhere (ended from another server,
   * or expired by its recovery) stops here if it is live here, and this process's pages hear it ended.
   */
  async signalled(runId: string): Promise<string | undefined> {
    const row = await this.#row(runId);
    if (!row) return "no such run in this store";
    if (row.status === "running") return undefined;
    const live = this.#live.get(runId);
    if (live) {
      if (live.userId !== row.user_id) return "its row does not belong to the run live here";
      this.#drop(live, row.status);
    }
    this.relay.relay("run", runId, row.session_id, { type: "run_ended", run_id: runId, reason: row.status });
    return undefined;
  }

  /** After lost notifications: every run live here re-reads its row. */
  async resync(): Promise<void> {
    for (const id of [...this.#live.keys()]) await this.signalled(id);
  }

  /** The live run, if it is this user's and still running in this process. */
  async live(userId: string, runId: string): Promise<LiveRun | InvokeResult> {
    const live = this.#live.get(runId);
    if (live) {
      if (live.userId !== userId) return refusal("unauthorized", `Run "${runId}" is not yours.`);
      return live;
    }
    const row = (await this.store
      .sql("SELECT user_id, status, lease_owner, lease_expires FROM runs WHERE id = ?")
      .get(runId)) as
      | { user_id: string; status: string; lease_owner: string | null; lease_expires: number | null }
      | undefined;
    if (row && row.user_id !== userId) return refusal("unauthorized", `Run "${runId}" is not yours.`);
    // Live in another server sharing the store (its lease is current): its calls, holds and waiters are there.
    if (row?.status === "running" && row.lease_owner !== null && (row.lease_expires ?? 0) >= Date.now()) {
      return refusal(
        "capability_unavailable",
        `Run "${runId}" is served by another server (${row.lease_owner}), which holds its calls; send them to the server that started it. Behind a load balancer, keep a script and its runs, and a page and its socket, on one server (route by the nt_login cookie and the Authorization header).`,
      );
    }
    return refusal("run_ended", `Run "${runId}" has ended or does not exist here. Start a new run with run.start.`);
  }

  /**
   * `run.invoke`: one call through the call router (decode, dispatch, the whole ladder, encode),
   * idempotent by `(runId, callId)`; `hold` says whether a call waiting on a person is answered
   * `{pending: true}` after `holdMs` (HTTP) or simply when it settles (the page's socket).
   */
  async invoke(
    userId: string,
    input: {
      runId: string;
      module: string;
      export: string;
      args: unknown;
      callId?: string | undefined;
      actor?: Actor | undefined;
    },
    options: { hold?: boolean } = {},
  ): Promise<InvokeAnswer> {
    const live = await this.live(userId, input.runId);
    if ("ok" in live) return live;
    const actor = input.actor ?? "agent";
    return this.held(live, {
      callId: input.callId,
      key: canonicalJson({ module: input.module, export: input.export, args: input.args, actor }),
      hold: options.hold ?? true,
      start: async () => {
        const call = { callId: input.callId ?? "call", module: input.module, export: input.export, args: input.args };
        const { callId: _id, ...result } = await serveCall({ ...call, actor }, live.router, live.controller.signal);
        return result;
      },
    });
  }

  /** One call of a live run through its idempotency record and, over HTTP, the hold. */
  held(
    live: LiveRun,
    call: { callId: string | undefined; key: string; hold: boolean; start: () => Promise<InvokeResult> },
  ): Promise<InvokeAnswer> {
    return callOnce(
      live,
      {
        callId: call.callId,
        key: call.key,
        maxCalls: this.config.maxCallsPerRun,
        holdMs: call.hold ? this.config.holdMs : undefined,
      },
      call.start,
    );
  }

  /** Renews the lease of every live row this process owns (runs, pending approvals, live jobs). */
  async renewLeases(): Promise<void> {
    const until = Date.now() + this.config.leaseMs;
    await this.store.tx(async () => {
      await this.store
        .sql("UPDATE runs SET lease_expires = ? WHERE lease_owner = ? AND status = 'running'")
        .run(until, this.config.owner);
      await this.store
        .sql("UPDATE approvals SET lease_expires = ? WHERE lease_owner = ? AND status = 'pending'")
        .run(until, this.config.owner);
      await this.store
        .sql("UPDATE jobs SET lease_expires = ? WHERE lease_owner = ? AND status IN ('queued', 'running')")
        .run(until, this.config.owner);
    });
  }

  /** Ends every live run (shutdown). */
  async endAll(): Promise<void> {
    for (const live of [...this.#live.values()]) await this.end(live.userId, live.id, "ended");
  }

  /** Runs of this widget's sessions live in this process (what its "actions in flight" limit counts). */
  liveCount(widgetId: string): number {
    let count = 0;
    for (const live of this.#live.values()) if (live.widgetId === widgetId) count++;
    return count;
  }

  /** The widgets whose sessions have runs live here. */
  liveWidgets(): Set<string> {
    const ids = new Set<string>();
    for (const live of this.#live.values()) if (live.widgetId !== null) ids.add(live.widgetId);
    return ids;
  }

  /** Cancels every live run of a widget's sessions (the widget was revoked); returns how many. */
  endForWidget(widgetId: string): number {
    const ended = [...this.#live.values()].filter((live) => live.widgetId === widgetId);
    for (const live of ended) {
      this.end(live.userId, live.id, "cancelled").catch((err: unknown) => this.logError("widget run end", err));
    }
    return ended.length;
  }
}

async function loadImpl(spec: AnySpec) {
  const module = moduleOf(spec.name);
  if (!module) throw new Error(`capability ${spec.name} belongs to no module`);
  const impls = await loadNamespace(module.name);
  const impl = impls.get(spec);
  if (!impl) throw new Error(`capability ${spec.name} has no implementation attached to its spec`);
  return impl;
}

export function refusal(
  code: "unauthorized" | "run_ended" | "invalid_call" | "unknown_module" | "capability_unavailable",
  message: string,
): InvokeResult {
  return { ok: false, error: failure(code, message) };
}
