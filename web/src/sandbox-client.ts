/**
 * Runs actions in the page: one Web Worker with the QuickJS host, one action at a time. Each action
 * gets its own server run, opened while the worker already runs the action (its calls wait for the
 * run; a run that cannot open stops the action and says so; an action that made no calls shows its
 * result without waiting for its run). Its guest calls are routed here: `ui` calls to the page's
 * `UiClient` when it has an editor to apply them to (after the server's gate), everything else to the
 * server (call-forwarding.ts: one `run.invoke` per call over the page's socket, a streamed
 * `run.invokeMany` per batch over the HTTP fallback), which is also the `ui` document fallback when
 * there is none. A killed or crashed worker is replaced and the action ends with a clear error; the
 * panel stays usable.
 */
import type { FailurePayload } from "../../shared/protocol/errors.ts";
import type { CallBatch, Observation, PackInfo, WireCall, WireCallResult } from "../../shared/protocol/worker.ts";
import { type ActionExecutor, type ExecutedAction, readObservation } from "../../shared/sandbox/executor.ts";
import { endedWhileWaiting, failedCall, invokeEach, invokeMany, notOpened, pageFailure } from "./call-forwarding.ts";
import { resend } from "./resend.ts";
import { SettleBatcher } from "./settle-batcher.ts";
import type { Api, Transport } from "./transport.ts";
import { UI_MODULE, type UiClient } from "./ui-client.ts";
import { PageWorker } from "./worker-host.ts";

/** The page's executor (shared/sandbox/executor.ts): `run` never rejects; a notice says the worker was replaced. */
/** What one page run may name: the agent conversation whose action it is (a child agent's tokens count there). */
export interface PageRunOptions {
  threadId?: string | undefined;
}

/** A page run's answer: the readable observation, its result as host values, and a notice. */
export interface PageRun extends ExecutedAction {
  notice?: string;
}

export interface SandboxClient extends ActionExecutor<PageRunOptions | undefined, PageRun> {
  run(action: string, options?: PageRunOptions): Promise<PageRun>;
  cancel(): void;
}

interface Setup {
  modules: string[];
  packs: PackInfo[];
  timeoutMs: number;
  maxMessageBytes: number;
  /** Calls travel over the page's socket (else over the HTTP fallback). */
  socket: boolean;
}

interface Current {
  /** The worker's name for this action (the server's run id is `opened`'s, known a round trip later). */
  localId: string;
  /** The server's run: the worker starts at once and its calls wait for this. */
  opened: Promise<string>;
  /** Whether `opened` has settled (a Cancel before it is a cancel before the action started). */
  open: boolean;
  cancelledBeforeOpen?: boolean;
  worker: PageWorker;
  cancelled: boolean;
  death?: string;
  settled: SettleBatcher;
  setup: Setup;
}

/** Slack over the action's own deadline before the page stops waiting for the worker's answer. */
const ANSWER_GRACE_MS = 10_000;

export interface SandboxOptions {
  sessionId: string;
  transport: Transport;
  /** Serves `ui` calls in the page (an editor to apply them to); without it the server's fallback does. */
  ui?: Pick<UiClient, "serve"> | undefined;
}

export function createSandboxClient(options: SandboxOptions): SandboxClient {
  return new BrowserSandbox(options);
}

class BrowserSandbox implements SandboxClient {
  #worker: Promise<PageWorker> | undefined;
  /** The started worker and the loaded setup, once known: a warm run starts without awaiting either. */
  #knownWorker: PageWorker | undefined;
  #knownSetup: Setup | undefined;
  #current: Current | undefined;
  /** The last run's end, while it is on its way to the server. */
  #ending: Promise<unknown> | undefined;
  /** Cancel was pressed while the action was still starting (before its run reached the worker). */
  #cancelBeforeStart = false;
  #setup: Promise<Setup> | undefined;
  readonly sessionId: string;
  readonly #transport: Transport;
  readonly #ui: Pick<UiClient, "serve"> | undefined;

  constructor(options: SandboxOptions) {
    this.sessionId = options.sessionId;
    this.#transport = options.transport;
    this.#ui = options.ui;
    // Start the worker early, so the first Run does not wait for it.
    void this.#ensureWorker().catch(() => {});
  }

  get #api(): Api {
    return this.#transport.api;
  }

  #ensureWorker(): Promise<PageWorker> {
    this.#worker ??= PageWorker.start({
      onCalls: (batch) => this.#serve(batch),
      onDeath: (reason) => {
        if (this.#current) this.#current.death = reason;
        this.#worker = undefined;
        this.#knownWorker = undefined;
      },
    }).then(
      (worker) => {
        this.#knownWorker = worker;
        return worker;
      },
      (err: unknown) => {
        this.#worker = undefined;
        throw err;
      },
    );
    return this.#worker;
  }

  #config(): Promise<Setup> {
    if (this.#setup) return this.#setup;
    this.#setup = Promise.all([
      this.#api.catalog.get.query({ sessionId: this.sessionId }),
      this.#api.config.get.query(),
      this.#transport.overWebSocket(),
    ]).then(([catalog, config, socket]) => {
      this.#knownSetup = {
        modules: catalog.modules.map((m) => m.name),
        packs: catalog.packInfo as PackInfo[],
        timeoutMs: config.actionTimeoutMs,
        maxMessageBytes: config.maxMessageBytes,
        socket,
      };
      return this.#knownSetup;
    });
    return this.#setup;
  }

  async run(code: string, options: PageRunOptions = {}): Promise<PageRun> {
    const started = performance.now();
    let opened: Promise<string> | undefined;
    this.#cancelBeforeStart = false;
    try {
      // Warm, both are known: the worker and the server hear of the action in this same task, before
      // the page repaints for it (an await would let the repaint go first).
      const setup = this.#knownSetup ?? (await this.#config());
      const live = this.#knownWorker;
      const worker = live && !live.dead ? live : await this.#ensureWorker();
      // The server's run opens while the worker already runs the action (a warm start waits one round
      // trip less); the action's calls wait for it, and if it cannot open, the action is stopped.
      const start = () =>
        this.#api.run.start.mutate({
          sessionId: this.sessionId,
          editor: this.#ui !== undefined,
          threadId: options.threadId,
        });
      // A run opens once the one before it has ended on the server (a result can show before its run
      // opened, so that end may still be on its way; a widget's cap on actions at once counts it till then).
      const ending = this.#ending;
      const runId = (ending ? ending.then(start, start) : start()).then((answer: unknown) => {
        const id = (answer as { runId?: unknown } | null)?.runId;
        if (typeof id !== "string") throw new Error("the server sent a malformed answer");
        return id;
      });
      opened = runId;
      const startFailure = runId.then(
        () => undefined,
        (err: unknown) => `The action could not start: ${err instanceof Error ? err.message : String(err)}`,
      );
      // Cancelled while it was starting: it never reaches the worker (the run ends below, in finally).
      if (this.#cancelBeforeStart) return { observation: cancelledBeforeStart(performance.now() - started) };
      const localId = `run_${crypto.randomUUID().replace(/-/g, "")}`;
      const settled = new SettleBatcher((results) => worker.settle({ type: "settle", run_id: localId, results }));
      const current: Current = { localId, opened: runId, open: false, worker, cancelled: false, settled, setup };
      this.#current = current;
      void startFailure.then((failure) => {
        current.open = true;
        if (failure && this.#current === current) this.#stop(current);
      });
      try {
        const response = await worker.run(
          {
            type: "run",
            run_id: localId,
            action: code,
            mounted: setup.modules,
            packs: setup.packs,
            limits: { timeout_ms: setup.timeoutMs },
          },
          setup.timeoutMs + 5 * 60_000 + ANSWER_GRACE_MS,
        );
        // An action that made no calls needed nothing of its run: its result shows now, while the run
        // still opens (it ends once open, below). One that made calls waited for the run already.
        if (!current.open && !current.cancelled && response.observation.calls.length === 0) {
          void startFailure.then((failure) => {
            if (failure) console.warn(`${failure} (the action made no calls; its result stands)`);
          });
          return readObservation(response.observation);
        }
        const failure = await startFailure;
        if (failure) return { observation: failed("capability_failed", failure, performance.now() - started) };
        if (current.cancelledBeforeOpen) return { observation: cancelledBeforeStart(performance.now() - started) };
        return readObservation(response.observation);
      } catch (err) {
        const failure = await startFailure;
        if (failure) return { observation: failed("capability_failed", failure, performance.now() - started) };
        // The worker was killed (watchdog, cancel) or crashed: say what happened; a fresh one starts.
        const reason = current.cancelled ? "cancelled" : current.death ? "timeout" : "run_ended";
        const message = current.cancelledBeforeOpen
          ? "The action was cancelled before it started."
          : current.cancelled
            ? "The action was cancelled."
            : current.death
              ? `The action was stopped: ${current.death}.`
              : `The sandbox stopped unexpectedly: ${err instanceof Error ? err.message : "unknown error"}.`;
        worker.terminate(reason);
        if (this.#worker && (await this.#worker.catch(() => undefined)) === worker) this.#worker = undefined;
        void this.#ensureWorker().catch(() => {});
        return {
          observation: failed(reason, message, performance.now() - started),
          notice: "The sandbox worker was replaced; you can run the next action.",
        };
      }
    } catch (err) {
      return {
        observation: failed(
          "capability_failed",
          `The action could not start: ${err instanceof Error ? err.message : String(err)}`,
          performance.now() - started,
        ),
      };
    } finally {
      if (this.#current?.opened === opened) this.#current = undefined;
      if (opened) {
        const ending = opened
          .then(
            (ended) =>
              resend(
                () => this.#api.run.end.mutate({ runId: ended }),
                () => true,
              ),
            () => {},
          )
          .catch(() => {});
        this.#ending = ending;
        void ending.finally(() => {
          if (this.#ending === ending) this.#ending = undefined;
        });
      }
    }
  }

  cancel(): void {
    const current = this.#current;
    if (!current) {
      this.#cancelBeforeStart = true;
      return;
    }
    if (current.cancelled) return;
    current.cancelled = true;
    current.cancelledBeforeOpen = !current.open;
    void current.opened.then((runId) => this.#api.run.cancel.mutate({ runId })).catch(() => {});
    this.#stop(current);
  }

  /** Asks the worker to interrupt the VM; if it does not answer promptly, terminates it. */
  #stop(current: Current): void {
    const kill = setTimeout(() => current.worker.terminate("cancelled"), 1_000);
    current.worker.cancel(current.localId).then(
      () => clearTimeout(kill),
      () => {},
    );
  }

  #serve(batch: CallBatch): void {
    const current = this.#current;
    if (!current || current.localId !== batch.run_id) return;
    current.settled.expect(batch.calls.length);
    const isCurrent = () => this.#current === current && !current.cancelled;
    const settleAll = (results: WireCallResult[]) => current.settled.addAll(results);
    current.opened.then(
      (runId) =>
        isCurrent()
          ? this.#forward(current, runId, batch.calls, isCurrent)
          : settleAll(batch.calls.map((call) => failedCall(call, endedWhileWaiting()))),
      () => settleAll(batch.calls.map((call) => failedCall(call, notOpened()))),
    );
  }

  /** The calls of one worker batch, once the server's run is open: `ui` to the page, the rest to the server. */
  #forward(current: Current, runId: string, calls: readonly WireCall[], isCurrent: () => boolean): void {
    const settle = (result: WireCallResult) => current.settled.add(result);
    const settleAll = (results: WireCallResult[]) => current.settled.addAll(results);
    const invokes: WireCall[] = [];
    // Every first request leaves in this same tick, so the batch link sends them as one HTTP request.
    const ui = this.#ui;
    for (const call of calls) {
      if (call.module !== UI_MODULE || !ui) {
        invokes.push(call);
        continue;
      }
      // A call must always settle, or the guest waits for it until its deadline.
      void ui
        .serve(runId, call, isCurrent)
        .catch((): WireCallResult => failedCall(call, pageFailure()))
        .then(settle);
    }
    if (invokes.length === 0) return;
    const sent = current.setup.socket
      ? invokeEach(this.#api, runId, invokes, isCurrent, settle, current.setup.maxMessageBytes)
      : invokeMany(this.#api, runId, invokes, isCurrent, settleAll);
    void sent.catch(() => settleAll(invokes.map((call) => failedCall(call, pageFailure()))));
  }
}

function cancelledBeforeStart(ms: number): Observation {
  return failed("cancelled", "The action was cancelled before it started.", ms);
}

function failed(code: FailurePayload["code"], message: string, ms: number): Observation {
  return { ok: false, error: { code, message }, logs: [], calls: [], duration_ms: ms };
}
