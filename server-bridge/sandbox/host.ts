/**
 * The Node-side sandbox host: runs actions in one `worker_threads` worker (worker/entry-node, built by
 * build.ts) with the guest's calls served in-process by the caller's router (no HTTP hop). One action
 * at a time; `run` never rejects (shared/sandbox/executor.ts).
 *
 * The watchdog terminates the worker when a synchronous VM slice overruns its deadline; every call
 * pending on it rejects at once (the channel), the action answers `timeout`, and a fresh worker takes
 * its place. A worker that dies for any other reason (a crash, an uncaught host fault) takes down only
 * itself: the action answers `run_ended` and a new worker is started at once for the next one. (A
 * QuickJS abort, such as freeing a runtime with an object still alive, is caught inside the worker,
 * which rebuilds its module. No heap limit is set on the worker: Node ends the whole process, not the
 * worker, when some allocations cross one; the guest's data is bounded where it enters instead.)
 * The worker says when its next runtime is prepared, so a pool can prefer a worker that is ready.
 */
import { MessageChannel, Worker } from "node:worker_threads";
import { failure, isCodedError } from "../../shared/protocol/errors.ts";
import {
  CallBatch,
  type LimitOverrides,
  type PackInfo,
  RunResponse,
  RuntimePrepared,
  SandboxStats,
  WORKER_API_NAMES,
} from "../../shared/protocol/worker.ts";
import { connectRemote, nodeEndpoint, type RemoteChannel } from "../../shared/sandbox/channel.ts";
import {
  type DisposableExecutor,
  type ExecutedAction,
  failedObservation,
  readObservation,
} from "../../shared/sandbox/executor.ts";
import { startWatchdog, type Watchdog } from "../../shared/sandbox/watchdog.ts";
import type { CallRouter } from "../calls/router.ts";
import { buildNodeWorker } from "./build.ts";
import { serveBatch } from "./serve-batch.ts";

export interface NodeSandboxOptions {
  /** The built worker entry; built on demand when omitted. */
  workerFile?: string;
  /** Defaults for every action (a run may override them). */
  limits?: LimitOverrides;
  /** How long past its deadline a single VM slice may run before the worker is terminated. */
  graceMs?: number;
  wasmMaxBytes?: number;
  /** The worker's native stack; generous so QuickJS's own stack limit is always hit first. */
  stackSizeMb?: number;
}

/** What the Node sandbox needs beside the action's source. */
export interface NodeRunOptions {
  /** Mounted capability namespaces (`workflows`). */
  mounted: readonly string[];
  /** Library packs the session allows, as the worker needs to know them (`library.packInfo(...)`). */
  packs?: readonly PackInfo[];
  /** Serves the guest's calls; see calls/router.ts (`callRouter`). */
  router: CallRouter;
  limits?: LimitOverrides;
  /** Cancels the action (answers `cancelled`). */
  signal?: AbortSignal;
}

export interface ActionRun extends ExecutedAction {
  timings: RunResponse["timings"];
  /** Which of a pool's workers ran it (0-based; absent when it never reached one). */
  worker?: number;
}

/** A Node sandbox: one host, or the pool over several (pool.ts). */
export type NodeExecutor<TOptions extends NodeRunOptions = NodeRunOptions> = DisposableExecutor<TOptions, ActionRun>;

interface Slot {
  worker: Worker;
  channel: RemoteChannel;
  watchdog: Watchdog;
  stopHost: () => void;
  overrun: boolean;
  /** Actions sent to this worker. */
  sent: number;
  /**
   * The run requests the worker had received when it last said a runtime was prepared. It is ready for
   * the next action only when that counts every action sent (an earlier one's "prepared" is stale: that
   * action took the runtime).
   */
  preparedAfter: number | undefined;
  started: Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_CREDIT_MS = 5 * 60_000;
const NO_TIMINGS: RunResponse["timings"] = { setup_ms: 0, total_ms: 0, prepare_ms: 0, prepared_ahead: false };

export class NodeSandboxHost implements NodeExecutor {
  readonly #options: NodeSandboxOptions;
  readonly #workerFile: string;
  /** The router of each action in flight, and the signal its calls get (made when the first call arrives). */
  readonly #routers = new Map<string, { router: CallRouter; controller?: AbortController }>();
  #runs = 0;
  #slot: Slot | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #queued = 0;
  #disposed = false;
  /** Workers replaced after an overrun or a crash. */
  restarts = 0;

  private constructor(options: NodeSandboxOptions, workerFile: string) {
    this.#options = options;
    this.#workerFile = workerFile;
  }

  static async start(options: NodeSandboxOptions = {}): Promise<NodeSandboxHost> {
    const file = options.workerFile ?? (await buildNodeWorker());
    const host = new NodeSandboxHost(options, file);
    await host.#ensureSlot().started;
    return host;
  }

  /** Actions running or waiting here. */
  get load(): number {
    return this.#queued;
  }

  /** Idle, with a runtime already prepared: an action sent now starts at once. */
  get ready(): boolean {
    const slot = this.#slot;
    return this.#queued === 0 && slot !== undefined && slot.preparedAfter === slot.sent;
  }

  /** Runs one action; resolves with its observation (never rejects, whatever the guest or the worker did). */
  run(action: string, options: NodeRunOptions): Promise<ActionRun> {
    this.#queued++;
    const next = this.#queue.then(() => this.#run(action, options)).finally(() => this.#queued--);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** The worker's counters after it did its idle work (the last runtime freed); undefined if it is gone. */
  async stats(): Promise<SandboxStats | undefined> {
    const slot = this.#slot;
    if (!slot) return undefined;
    await this.#queue;
    try {
      return SandboxStats.parse(await slot.channel.call("stats", undefined, { timeoutMs: 10_000 }));
    } catch {
      return undefined;
    }
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const slot = this.#slot;
    this.#slot = undefined;
    if (slot) await this.#stop(slot, "the sandbox host was disposed");
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  #ensureSlot(): Slot {
    if (this.#slot) return this.#slot;
    const { port1, port2 } = new MessageChannel();
    const watchdog = startWatchdog({
      graceMs: this.#options.graceMs ?? 1000,
      onOverrun: () => {
        slot.overrun = true;
        this.#replace(slot, "a single operation overran the action's deadline");
      },
    });
    const worker = new Worker(this.#workerFile, {
      workerData: {
        hostPort: port2,
        sliceBuffer: watchdog.buffer,
        wasmMaxBytes: this.#options.wasmMaxBytes,
      },
      transferList: [port2],
      resourceLimits: { stackSizeMb: this.#options.stackSizeMb ?? 32 },
    });
    const channel = connectRemote(nodeEndpoint(worker), WORKER_API_NAMES, 60_000);
    // Guest calls arrive as one-way `calls` messages (parsed in #serve); their results go back as one-way
    // `settle` messages: nothing is acknowledged.
    const onCalls = (batch: unknown) => this.#serve(batch);
    port1.on("message", onCalls);
    const stopHost = () => port1.off("message", onCalls);
    let started!: () => void;
    const slot: Slot = {
      worker,
      channel,
      watchdog,
      stopHost,
      overrun: false,
      sent: 0,
      preparedAfter: undefined,
      started: new Promise<void>((resolve) => {
        started = resolve;
      }),
    };
    let everStarted = false;
    worker.on("message", (data: unknown) => {
      // Comlink's answers arrive here too: only the worker's own message is parsed.
      if ((data as { type?: unknown } | null)?.type !== "prepared") return;
      const prepared = RuntimePrepared.safeParse(data);
      if (!prepared.success) return;
      slot.preparedAfter = prepared.data.requests;
      everStarted = true;
      started();
    });
    const onDeath = () => {
      started();
      channel.close(slot.overrun ? "terminated after an overrun" : "the worker exited");
      watchdog.dispose();
      stopHost();
      port1.close();
      if (this.#slot !== slot) return; // replaced or stopped on purpose
      this.#slot = undefined;
      this.restarts++;
      // Died on its own: start the replacement now (not for a worker that never started: no loop).
      if (everStarted && !this.#disposed) this.#ensureSlot();
    };
    worker.once("error", onDeath);
    worker.once("exit", onDeath);
    this.#slot = slot;
    return slot;
  }

  /** Ends `slot`'s worker and starts the replacement now, so the next action finds a warm one. */
  #replace(slot: Slot, reason: string): void {
    if (this.#slot !== slot) return;
    this.#slot = undefined;
    this.restarts++;
    void this.#stop(slot, reason);
    if (!this.#disposed) this.#ensureSlot();
  }

  async #stop(slot: Slot, reason: string): Promise<void> {
    slot.channel.close(reason);
    slot.watchdog.dispose();
    slot.stopHost();
    await slot.worker.terminate();
  }

  #serve(raw: unknown): void {
    const parsed = CallBatch.safeParse(raw);
    if (!parsed.success) return;
    const batch = parsed.data;
    const entry = this.#routers.get(batch.run_id);
    const slot = this.#slot;
    if (!entry || !slot) return;
    entry.controller ??= new AbortController();
    serveBatch({
      batch,
      router: entry.router,
      signal: entry.controller.signal,
      settle: (settlement) => {
        if (this.#slot !== slot) return;
        try {
          slot.worker.postMessage(settlement);
        } catch {
          // A result that cannot cross (it never should: results are plain encoded data) still settles.
          const message = "The result could not be sent back to the sandbox; nothing more is known.";
          slot.worker.postMessage({
            ...settlement,
            results: settlement.results.map((r) => ({
              callId: r.callId,
              ok: false,
              error: failure("capability_failed", message),
            })),
          });
        }
      },
    });
  }

  async #run(action: string, options: NodeRunOptions): Promise<ActionRun> {
    const started = performance.now();
    const failed = (code: "run_ended" | "timeout" | "cancelled", message: string): ActionRun => ({
      observation: failedObservation(code, message, performance.now() - started),
      timings: { ...NO_TIMINGS, total_ms: performance.now() - started },
    });
    if (this.#disposed) return failed("run_ended", "The sandbox is shutting down; the action was not run.");
    if (options.signal?.aborted) return failed("cancelled", "The action was cancelled before it started.");
    const slot = this.#ensureSlot();
    await slot.started;
    slot.sent++;
    // Unique among this host's actions, which is all a run id has to be on its channel.
    const runId = `act_${++this.#runs}`;
    const entry: { router: CallRouter; controller?: AbortController } = { router: options.router };
    this.#routers.set(runId, entry);
    const limits = { ...this.#options.limits, ...options.limits };
    // Through shared memory (read by the interrupt handler, so it stops a synchronous loop too) and by
    // message (which wakes an action that is waiting on its calls).
    const onAbort = () => {
      slot.watchdog.requestStop();
      void slot.channel.call("cancel", { type: "cancel", run_id: runId }).catch(() => undefined);
    };
    slot.watchdog.clearStop();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const bound =
      (limits.timeout_ms ?? DEFAULT_TIMEOUT_MS) +
      (limits.approval_credit_ms ?? DEFAULT_CREDIT_MS) +
      (this.#options.graceMs ?? 1000) +
      10_000;
    try {
      const raw = await slot.channel.call(
        "run",
        {
          type: "run",
          run_id: runId,
          action,
          mounted: [...options.mounted],
          packs: [...(options.packs ?? [])],
          limits,
        },
        { timeoutMs: bound },
      );
      const response = RunResponse.parse(raw);
      return { ...readObservation(response.observation), timings: response.timings };
    } catch (err) {
      if (slot.overrun) {
        return failed(
          "timeout",
          "The action ran past its time limit inside a single operation that cannot be interrupted (for example a builtin over a huge array-like); the sandbox was stopped and restarted.",
        );
      }
      if (this.#disposed) return failed("run_ended", "The sandbox is shutting down; the action was stopped.");
      const unanswered = isCodedError(err) && err.payload.code === "timeout";
      // A worker that did not answer in time or broke the protocol cannot be trusted with the next action.
      this.#replace(slot, "it stopped answering");
      return unanswered
        ? failed("timeout", "The sandbox did not answer within the action's time limit; it was restarted.")
        : failed(
            "run_ended",
            "The sandbox worker stopped while the action ran (it crashed or ran out of memory); a fresh one takes the next action. Retry; if it happens again, send less data per call.",
          );
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      entry.controller?.abort();
      this.#routers.delete(runId);
    }
  }
}
