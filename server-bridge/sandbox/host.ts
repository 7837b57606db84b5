/**
 * The Node-side sandbox host: runs actions in a `worker_threads` worker (worker/entry-node, built by
 * build.ts) with the guest's calls served in-process by the caller's router (no HTTP hop). One action
 * at a time per worker. The watchdog terminates the worker when a synchronous VM slice overruns its
 * deadline; every call pending on it rejects at once (the channel), the action answers `timeout`, and
 * a fresh worker takes its place for the next action. A worker that dies for any other reason is
 * replaced the same way.
 */
import { MessageChannel, Worker } from "node:worker_threads";
import { newId } from "../../shared/gate/approvals.ts";
import { isCodedError } from "../../shared/protocol/errors.ts";
import {
  CallBatch,
  HOST_API_NAMES,
  type LimitOverrides,
  type Observation,
  type PackInfo,
  RunResponse,
  WORKER_API_NAMES,
} from "../../shared/protocol/worker.ts";
import { connectRemote, exposeAllowlisted, nodeEndpoint, type RemoteChannel } from "../../shared/sandbox/channel.ts";
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

export interface RunActionOptions {
  action: string;
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

export interface ActionRun {
  observation: Observation;
  timings: RunResponse["timings"];
}

interface Slot {
  worker: Worker;
  channel: RemoteChannel;
  watchdog: Watchdog;
  stopHost: () => void;
  overrun: boolean;
  ready: Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_CREDIT_MS = 5 * 60_000;

export class NodeSandboxHost implements AsyncDisposable {
  readonly #options: NodeSandboxOptions;
  readonly #workerFile: string;
  readonly #routers = new Map<string, { router: CallRouter; signal: AbortSignal }>();
  #slot: Slot | undefined;
  #queue: Promise<unknown> = Promise.resolve();
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
    await host.#ensureSlot().ready;
    return host;
  }

  /** Runs one action; resolves with its observation (never rejects for anything the guest did). */
  runAction(options: RunActionOptions): Promise<ActionRun> {
    const next = this.#queue.then(() => this.#runAction(options));
    this.#queue = next.catch(() => undefined);
    return next;
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
    if (this.#disposed) throw new Error("the sandbox host was disposed");
    if (this.#slot) return this.#slot;
    const { port1, port2 } = new MessageChannel();
    const watchdog = startWatchdog({
      graceMs: this.#options.graceMs ?? 1000,
      onOverrun: () => {
        if (this.#slot === slot) this.#slot = undefined;
        slot.overrun = true;
        void this.#stop(slot, "a single operation overran the action's deadline");
        this.restarts++;
        // Start the replacement now, so the next action finds a warm worker.
        if (!this.#disposed) this.#ensureSlot();
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
    const stopHost = exposeAllowlisted(
      { calls: (batch: unknown) => this.#serve(batch) },
      nodeEndpoint(port1),
      HOST_API_NAMES,
    );
    const ready = new Promise<void>((resolve) => {
      const onMessage = (data: unknown) => {
        if ((data as { type?: unknown } | null)?.type !== "ready") return;
        worker.off("message", onMessage);
        resolve();
      };
      worker.on("message", onMessage);
      worker.once("exit", () => resolve());
    });
    const slot: Slot = { worker, channel, watchdog, stopHost, overrun: false, ready };
    const onDeath = () => {
      channel.close(slot.overrun ? "terminated after an overrun" : "the worker exited");
      if (this.#slot === slot) {
        this.#slot = undefined;
        this.restarts++;
      }
      watchdog.dispose();
      stopHost();
      port1.close();
    };
    worker.once("error", onDeath);
    worker.once("exit", onDeath);
    this.#slot = slot;
    return slot;
  }

  async #stop(slot: Slot, reason: string): Promise<void> {
    slot.channel.close(reason);
    slot.watchdog.dispose();
    slot.stopHost();
    await slot.worker.terminate();
  }

  async #serve(raw: unknown): Promise<void> {
    const batch = CallBatch.parse(raw);
    const entry = this.#routers.get(batch.run_id);
    const slot = this.#slot;
    if (!entry || !slot) return;
    serveBatch({
      batch,
      router: entry.router,
      signal: entry.signal,
      settle: (settlement) => {
        slot.channel.call("settle", settlement, { timeoutMs: 10_000 }).catch(() => undefined);
      },
    });
  }

  async #runAction(options: RunActionOptions): Promise<ActionRun> {
    const started = performance.now();
    const slot = this.#ensureSlot();
    await slot.ready;
    const runId = newId("act");
    const controller = new AbortController();
    this.#routers.set(runId, { router: options.router, signal: controller.signal });
    const limits = { ...this.#options.limits, ...options.limits };
    const onAbort = () => void slot.channel.call("cancel", { type: "cancel", run_id: runId }).catch(() => undefined);
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
          action: options.action,
          mounted: [...options.mounted],
          packs: [...(options.packs ?? [])],
          limits,
        },
        { timeoutMs: bound },
      );
      const response = RunResponse.parse(raw);
      return { observation: response.observation, timings: response.timings };
    } catch (err) {
      const overran = slot.overrun;
      if (!overran && this.#slot === slot) {
        // The worker did not answer in time or broke the protocol: it cannot be trusted with the next action.
        this.#slot = undefined;
        this.restarts++;
        await this.#stop(slot, "it stopped answering");
      }
      const message = overran
        ? `The action ran past its time limit inside a single operation that cannot be interrupted (for example a builtin over a huge array-like); the sandbox was stopped and restarted.`
        : `The sandbox stopped before the action finished${isCodedError(err) ? ` (${err.payload.message})` : ""}; it was restarted.`;
      const observation: Observation = {
        ok: false,
        error: {
          code: overran || (isCodedError(err) && err.payload.code === "timeout") ? "timeout" : "run_ended",
          message,
        },
        logs: [],
        calls: [],
        duration_ms: Math.round(performance.now() - started),
      };
      return {
        observation,
        timings: { setup_ms: 0, total_ms: performance.now() - started, prepare_ms: 0, prepared_ahead: false },
      };
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      controller.abort();
      this.#routers.delete(runId);
    }
  }
}
