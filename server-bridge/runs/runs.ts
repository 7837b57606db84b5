/**
 * Runs: one CapabilityRun per agent run, leased in the store by this process. `invoke` is the
 * server's entrance for `run.invoke`: the dispatcher, then the ladder. A call waiting on an approval is
 * held at most `holdMs`, then answered `{pending: true}`; the same `(runId, callId)` resumes the wait
 * or returns the settled result, and never runs the capability twice.
 */
import { moduleOf, PACK_PREFIX } from "../../shared/capabilities/table.ts";
import type { Actor, AnySpec, InvokeResult } from "../../shared/capabilities/types.ts";
import type { Approver } from "../../shared/gate/approvals.ts";
import { canonicalJson, newId } from "../../shared/gate/approvals.ts";
import type { Gate } from "../../shared/gate/gate.ts";
import { type Authorization, type CapabilityRun, createRun, safeMessage } from "../../shared/gate/invoke.ts";
import { CodedError, type ErrorCode, failure, isCodedError } from "../../shared/protocol/errors.ts";
import type { AnswerGroup, InvokeAnswer, InvokeCall } from "../../shared/protocol/server.ts";
import { fromWire, toWire } from "../../shared/protocol/values.ts";
import { dispatch } from "../../shared/sandbox/dispatch.ts";
import type { ServerServices } from "../capabilities/define.ts";
import { loadNamespace } from "../capabilities/registry.ts";
import { engineOf } from "../engine/jobs.ts";
import { startWorkflowJob, type WorkflowRunArgs } from "../engine/run-workflow.ts";
import { defaultLibrary } from "../packs/index.ts";
import type { AuditLog } from "../store/audit.ts";
import type { Store } from "../store/db.ts";
import type { ApprovalBroker } from "./approvals.ts";
import type { EventBus } from "./events.ts";
import type { Sessions } from "./sessions.ts";

export interface RunsConfig {
  owner: string;
  leaseMs: number;
  holdMs: number;
  approvalTimeoutMs: number;
  runMaxMs: number;
  maxCallsPerRun: number;
}

interface CallEntry {
  key: string;
  promise: Promise<InvokeResult>;
}

export interface LiveRun {
  readonly id: string;
  readonly sessionId: string;
  readonly userId: string;
  readonly run: CapabilityRun<ServerServices>;
  readonly mounted: readonly string[];
  readonly packs: readonly string[];
  readonly controller: AbortController;
  readonly calls: Map<string, CallEntry>;
  /** `ui` calls the gate let through, waiting for the page's `run.complete`. */
  readonly authorized: Map<
    string,
    Authorization & { actor: Actor; started: number; waited: number /** ui_run_workflow: its job. */; jobId?: string }
  >;
  callCount: number;
  timer: ReturnType<typeof setTimeout>;
}

export class Runs {
  readonly #live = new Map<string, LiveRun>();

  constructor(
    private readonly store: Store,
    private readonly sessions: Sessions,
    private readonly approvals: ApprovalBroker,
    private readonly bus: EventBus,
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
  start(
    userId: string,
    sessionId: string,
    options: { gate?: Gate; approver?: Approver; editor?: boolean } = {},
  ): LiveRun {
    const session = this.sessions.require(userId, sessionId);
    const id = newId("run");
    const at = Date.now();
    this.store
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
    };
    const run = createRun<ServerServices>({
      context: { user_id: userId, session_id: sessionId, run_id: id, signal: controller.signal },
      gate,
      services: { ...this.services, store: this.store },
      // A page with an open editor serves `ui` calls itself (after run.authorize): the run has a client.
      provides: options.editor ? ["client"] : [],
      loadImpl: (spec) => loadImpl(spec),
      audit: (record) => this.audit.write(userId, record),
      logError: this.logError,
    });
    const live: LiveRun = {
      id,
      sessionId,
      userId,
      run,
      mounted: JSON.parse(session.modules) as string[],
      packs: JSON.parse(session.packs) as string[],
      controller,
      calls: new Map(),
      authorized: new Map(),
      callCount: 0,
      timer: setTimeout(() => this.end(userId, id, "expired"), this.config.runMaxMs),
    };
    live.timer.unref?.();
    this.#live.set(id, live);
    return live;
  }

  /** Ends a run: aborts what waits on it, settles its approvals, drops its shared results. */
  end(
    userId: string,
    runId: string,
    reason: "ended" | "cancelled" | "expired" = "ended",
  ): { runId: string; status: string } {
    const live = this.#live.get(runId);
    const row = this.store.sql("SELECT user_id, status FROM runs WHERE id = ?").get(runId) as
      | { user_id: string; status: string }
      | undefined;
    if (!row || row.user_id !== userId) {
      throw new CodedError({ code: "unauthorized", message: `Run "${runId}" does not exist or is not yours.` });
    }
    if (row.status !== "running") return { runId, status: row.status };
    this.store.tx(() => {
      this.store
        .sql(
          "UPDATE runs SET status = ?, ended_at = ?, end_reason = ?, lease_owner = NULL WHERE id = ? AND status = 'running'",
        )
        .run(reason, Date.now(), reason, runId);
      this.store.sql("DELETE FROM shared_results WHERE run_id = ?").run(runId);
    });
    if (live) {
      clearTimeout(live.timer);
      live.controller.abort(reason);
      this.#live.delete(runId);
      this.bus.publish(live.sessionId, { type: "run_ended", run_id: runId, reason });
    }
    this.approvals.cancelForRun(runId);
    return { runId, status: reason };
  }

  /** The live run, if it is this user's and still running in this process. */
  live(userId: string, runId: string): LiveRun | InvokeResult {
    const live = this.#live.get(runId);
    if (live) {
      if (live.userId !== userId) return refusal("unauthorized", `Run "${runId}" is not yours.`);
      return live;
    }
    const row = this.store.sql("SELECT user_id, status FROM runs WHERE id = ?").get(runId) as
      | { user_id: string; status: string }
      | undefined;
    if (row && row.user_id !== userId) return refusal("unauthorized", `Run "${runId}" is not yours.`);
    return refusal("run_ended", `Run "${runId}" has ended or does not exist here. Start a new run with run.start.`);
  }

  /** `run.invoke`: the dispatcher, then the whole ladder. */
  invoke(
    userId: string,
    input: {
      runId: string;
      module: string;
      export: string;
      args: unknown[];
      callId?: string | undefined;
      actor?: Actor | undefined;
    },
  ): Promise<InvokeAnswer> {
    const actor = input.actor ?? "agent";
    const key = canonicalJson({ module: input.module, export: input.export, args: input.args, actor });
    return this.#call(userId, input.runId, input.callId, key, async (live) => {
      // Arguments and results travel in the boundary encoding ($bytes, $asset, escaped $-keys).
      // Arguments that are not an array are left as they are, for the dispatcher to refuse by name.
      const decoded = Array.isArray(input.args) ? decodeArgs(input.export, input.args) : { args: input.args };
      if ("refused" in decoded) return decoded.refused;
      const { args } = decoded;
      const call = { module: input.module, export: input.export, args };
      if (input.module.startsWith(PACK_PREFIX)) {
        // Library packs: pure functions on the server, only those the session allows.
        const packCall = { call_id: input.callId ?? "call", ...call, args: Array.isArray(args) ? args : [] };
        if (!Array.isArray(args))
          return refusal("invalid_call", `${input.module} ${input.export}: args must be an array.`);
        return encodeResult(input.export, await defaultLibrary().dispatch(packCall, live.packs));
      }
      return encodeResult(input.export, await dispatch(live.run, live.mounted, call, { actor }));
    });
  }

  /**
   * `run.invokeMany`: the calls of one worker batch, each exactly as `invoke` would run it (its own
   * callId, hold and idempotency, the whole ladder), answered as they settle. Answers ready at the same
   * moment travel as one group (a hundred calls that finish together are one chunk of the stream, not a
   * hundred), and a call waiting for a person holds back no other: it answers `{pending: true}` after
   * the hold like any held call, and the client sends it again with the same callId.
   */
  async *invokeMany(
    userId: string,
    input: { runId: string; calls: readonly InvokeCall[]; actor?: Actor | undefined },
  ): AsyncGenerator<AnswerGroup, void, undefined> {
    const ready: AnswerGroup = [];
    let wake: (() => void) | undefined;
    for (const call of input.calls) {
      const answered = (answer: InvokeAnswer) => {
        ready.push({ callId: call.callId, answer });
        wake?.();
      };
      this.invoke(userId, { ...call, runId: input.runId, actor: input.actor }).then(answered, (err: unknown) => {
        if (isCodedError(err)) return answered({ ok: false, error: err.payload });
        this.logError(call.export, err);
        answered({
          ok: false,
          error: failure("capability_failed", `${call.export} failed on the server; nothing more is known.`),
        });
      });
    }
    let left = input.calls.length;
    while (left > 0) {
      if (ready.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      // More of the batch may settle in this same turn: collect them into this group.
      if (ready.length < left) await new Promise<void>((resolve) => setImmediate(resolve));
      wake = undefined;
      const group = ready.splice(0);
      left -= group.length;
      yield group;
    }
  }

  /**
   * `run.authorize` (the `ui` path): ladder steps 1-6 for a call the page will apply itself. The
   * answer carries the validated args; the outcome comes back through `complete`.
   */
  authorize(
    userId: string,
    input: { runId: string; capability: string; args: unknown; callId: string; actor?: Actor | undefined },
  ): Promise<InvokeAnswer> {
    const actor = input.actor ?? "agent";
    const key = canonicalJson({ authorize: input.capability, args: input.args, actor });
    const started = Date.now();
    return this.#call(userId, input.runId, input.callId, key, async (live) => {
      if (!input.capability.startsWith("ui_") && input.capability !== "list_renderers") {
        return refusal(
          "invalid_call",
          `Only ui capabilities are applied by the page; call ${input.capability} with run.invoke.`,
        );
      }
      if (!live.mounted.includes("ui"))
        return refusal("unknown_module", "The ui module is not mounted for this session.");
      // Arguments travel in the boundary encoding, as on run.invoke.
      const decoded = decodeArgs(input.capability, input.args);
      if ("refused" in decoded) return decoded.refused;
      const { args } = decoded;
      const result = await live.run.invoke(input.capability, args, { authorizeOnly: true, actor });
      if (!result.ok) return result;
      const authorization = result.value as Authorization;
      live.authorized.set(input.callId, { ...authorization, actor, started, waited: result.waited_ms ?? 0 });
      // The page applies exactly these arguments: they travel encoded, as every value does.
      return { ...result, value: { ...authorization, args: toWire(authorization.args, "args") } };
    });
  }

  /**
   * `run.startJob`: starts the job of an authorised `ui_run_workflow` call from exactly the args the
   * gate let through (the editor puts the open graph in them before authorising, so the approval named
   * what runs). Once per call: asking again answers the same job. The job's node effects pass the
   * run's gate on their own; the call's outcome is still reported with `run.complete`.
   */
  startJob(userId: string, input: { runId: string; callId: string }): InvokeResult {
    const live = this.live(userId, input.runId);
    if ("ok" in live) return live;
    const authorization = live.authorized.get(input.callId);
    if (authorization?.capability !== "ui_run_workflow") {
      return refusal(
        "invalid_call",
        `No authorised ui_run_workflow call "${input.callId}" is waiting in this run; authorise it with run.authorize first.`,
      );
    }
    try {
      const job =
        authorization.jobId === undefined
          ? startWorkflowJob(live.run, authorization.args as WorkflowRunArgs)
          : engineOf(live.run).view(userId, authorization.jobId, { nodes: false, nodeOutputs: false });
      authorization.jobId = job.job_id;
      return { ok: true, value: { job_id: job.job_id, status: job.status, progress: job.progress } };
    } catch (err) {
      return { ok: false, error: isCodedError(err) ? err.payload : failure("capability_failed", safeMessage(err)) };
    }
  }

  /** `run.complete`: the page reports how an authorised `ui` call went; audited once. */
  complete(
    userId: string,
    input: { runId: string; callId: string; ok: boolean; error?: { code: ErrorCode; message: string } | undefined },
  ): { recorded: true } | InvokeResult {
    const live = this.live(userId, input.runId);
    if ("ok" in live) return live;
    const authorization = live.authorized.get(input.callId);
    if (!authorization) {
      return refusal("invalid_call", `No authorised call "${input.callId}" is waiting for completion in this run.`);
    }
    live.authorized.delete(input.callId);
    this.audit.write(userId, {
      actor: authorization.actor,
      run_id: live.id,
      session_id: live.sessionId,
      capability: authorization.capability,
      category: authorization.category,
      decision: authorization.decision,
      outcome: input.ok ? "ok" : (input.error?.code ?? "capability_failed"),
      duration_ms: Date.now() - authorization.started,
      waited_ms: authorization.waited,
    });
    return { recorded: true };
  }

  /** One call of a run, idempotent by `(runId, callId)`, held at most `holdMs` before `{pending: true}`. */
  async #call(
    userId: string,
    runId: string,
    callId: string | undefined,
    key: string,
    start: (live: LiveRun) => Promise<InvokeResult>,
  ): Promise<InvokeAnswer> {
    const live = this.live(userId, runId);
    if ("ok" in live) return live;
    let entry = callId === undefined ? undefined : live.calls.get(callId);
    if (entry && entry.key !== key) {
      return refusal("invalid_call", `callId "${callId}" was already used in this run with different arguments.`);
    }
    if (!entry) {
      if (++live.callCount > this.config.maxCallsPerRun) {
        return refusal("invalid_call", `This run reached its cap of ${this.config.maxCallsPerRun} capability calls.`);
      }
      entry = { key, promise: start(live) };
      if (callId !== undefined) live.calls.set(callId, entry);
    }
    if (callId === undefined) return entry.promise;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const held = new Promise<{ pending: true }>((resolve) => {
      timer = setTimeout(() => resolve({ pending: true }), this.config.holdMs);
    });
    try {
      return await Promise.race([entry.promise, held]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Renews the lease of every live row this process owns (runs, pending approvals, live jobs). */
  renewLeases(): void {
    const until = Date.now() + this.config.leaseMs;
    this.store.tx(() => {
      this.store
        .sql("UPDATE runs SET lease_expires = ? WHERE lease_owner = ? AND status = 'running'")
        .run(until, this.config.owner);
      this.store
        .sql("UPDATE approvals SET lease_expires = ? WHERE lease_owner = ? AND status = 'pending'")
        .run(until, this.config.owner);
      this.store
        .sql("UPDATE jobs SET lease_expires = ? WHERE lease_owner = ? AND status IN ('queued', 'running')")
        .run(until, this.config.owner);
    });
  }

  /** Ends every live run (shutdown). */
  endAll(): void {
    for (const live of [...this.#live.values()]) this.end(live.userId, live.id, "ended");
  }
}

function encodeResult(name: string, result: InvokeResult): InvokeResult {
  if (!result.ok) return result;
  try {
    return { ...result, value: toWire(result.value, "result") };
  } catch (err) {
    const why = err instanceof Error ? err.message : "it cannot be encoded";
    return {
      ok: false,
      error: failure("capability_failed", `${name} returned a value that cannot be sent back: ${why}`),
    };
  }
}

/** Arguments in the boundary encoding, decoded; an undecodable value is an `invalid_call` naming `name`. */
function decodeArgs(name: string, wire: unknown): { args: unknown } | { refused: InvokeResult } {
  try {
    return { args: fromWire(wire, "args") };
  } catch (err) {
    const why = err instanceof Error ? err.message : "undecodable arguments";
    return { refused: refusal("invalid_call", `${name}: ${why}`) };
  }
}

function refusal(
  code: "unauthorized" | "run_ended" | "invalid_call" | "unknown_module",
  message: string,
): InvokeResult {
  return { ok: false, error: failure(code, message) };
}

async function loadImpl(spec: AnySpec) {
  const module = moduleOf(spec.name);
  if (!module) throw new Error(`capability ${spec.name} belongs to no module`);
  const impls = await loadNamespace(module.name);
  const impl = impls.get(spec);
  if (!impl) throw new Error(`capability ${spec.name} has no implementation attached to its spec`);
  return impl;
}
