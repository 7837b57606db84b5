/**
 * Runs actions in the page: one Web Worker with the QuickJS host, one action at a time. Each action
 * gets its own server run; its guest calls are routed here: `ui` calls to the page's `UiClient` when it
 * has an editor to apply them to (after the server's gate), everything else to the server (which is
 * also the `ui` document fallback when there is none). Over the page's socket each call is one `run.invoke`
 * (the calls the guest issued in one tick leave together, in one message, split below the server's
 * message cap); a call waiting on a person simply answers when it settles, and a call in flight when
 * the socket dropped is sent again with its same callId. Over the HTTP fallback a batch is one
 * streamed `run.invokeMany` whose answers come back in groups; a `{pending: true}` answer is sent
 * again with the same callId. A killed or crashed worker is replaced and the action ends with a clear
 * error; the panel stays usable.
 */
import type { FailurePayload } from "../../shared/protocol/errors.ts";
import { AnswerGroup } from "../../shared/protocol/server.ts";
import type { CallBatch, Observation, PackInfo, WireCall, WireCallResult } from "../../shared/protocol/worker.ts";
import type { ActionExecutor } from "../../shared/sandbox/executor.ts";
import { MessageTooLargeError, resend } from "./resend.ts";
import { SettleBatcher } from "./settle-batcher.ts";
import type { Api, Transport } from "./transport.ts";
import { callResult, readAnswer, UI_MODULE, type UiClient } from "./ui-client.ts";
import { PageWorker } from "./worker-host.ts";

/** The page's executor (shared/sandbox/executor.ts): `run` never rejects; a notice says the worker was replaced. */
/** What one page run may name: the agent conversation whose action it is (a child agent's tokens count there). */
export interface PageRunOptions {
  threadId?: string | undefined;
}

export interface SandboxClient
  extends ActionExecutor<PageRunOptions | undefined, { observation: Observation; notice?: string }> {
  run(action: string, options?: PageRunOptions): Promise<{ observation: Observation; notice?: string }>;
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
  runId: string;
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
  #current: Current | undefined;
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
      },
    }).catch((err: unknown) => {
      this.#worker = undefined;
      throw err;
    });
    return this.#worker;
  }

  #config() {
    this.#setup ??= Promise.all([
      this.#api.catalog.get.query({ sessionId: this.sessionId }),
      this.#api.config.get.query(),
      this.#transport.overWebSocket(),
    ]).then(([catalog, config, socket]) => ({
      modules: catalog.modules.map((m) => m.name),
      packs: catalog.packInfo as PackInfo[],
      timeoutMs: config.actionTimeoutMs,
      maxMessageBytes: config.maxMessageBytes,
      socket,
    }));
    return this.#setup;
  }

  async run(code: string, options: PageRunOptions = {}): Promise<{ observation: Observation; notice?: string }> {
    const started = performance.now();
    let runId: string | undefined;
    this.#cancelBeforeStart = false;
    try {
      const setup = await this.#config();
      const worker = await this.#ensureWorker();
      const opened = (await this.#api.run.start.mutate({
        sessionId: this.sessionId,
        editor: this.#ui !== undefined,
        threadId: options.threadId,
      })) as unknown;
      const startedId = (opened as { runId?: unknown } | null)?.runId;
      if (typeof startedId !== "string") throw new Error("the server sent a malformed answer");
      runId = startedId;
      // Cancelled while it was starting: it never reaches the worker (the run ends below, in finally).
      if (this.#cancelBeforeStart) {
        return {
          observation: failed("cancelled", "The action was cancelled before it started.", performance.now() - started),
        };
      }
      const id = runId;
      const settled = new SettleBatcher((results) => worker.settle({ type: "settle", run_id: id, results }));
      const current: Current = { runId, worker, cancelled: false, settled, setup };
      this.#current = current;
      try {
        const response = await worker.run(
          {
            type: "run",
            run_id: runId,
            action: code,
            mounted: setup.modules,
            packs: setup.packs,
            limits: { timeout_ms: setup.timeoutMs },
          },
          setup.timeoutMs + 5 * 60_000 + ANSWER_GRACE_MS,
        );
        return { observation: response.observation };
      } catch (err) {
        // The worker was killed (watchdog, cancel) or crashed: say what happened; a fresh one starts.
        const reason = current.cancelled ? "cancelled" : current.death ? "timeout" : "run_ended";
        const message = current.cancelled
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
      if (this.#current?.runId === runId) this.#current = undefined;
      const ended = runId;
      if (ended)
        void resend(
          () => this.#api.run.end.mutate({ runId: ended }),
          () => true,
        ).catch(() => {});
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
    void this.#api.run.cancel.mutate({ runId: current.runId }).catch(() => {});
    // Ask the worker to interrupt the VM; if it does not answer promptly, terminate it.
    const kill = setTimeout(() => current.worker.terminate("cancelled"), 1_000);
    current.worker.cancel(current.runId).then(
      () => clearTimeout(kill),
      () => {},
    );
  }

  #serve(batch: CallBatch): void {
    const current = this.#current;
    if (!current || current.runId !== batch.run_id) return;
    const isCurrent = () => this.#current === current && !current.cancelled;
    const settle = (result: WireCallResult) => current.settled.add(result);
    const settleAll = (results: WireCallResult[]) => current.settled.addAll(results);
    const invokes: WireCall[] = [];
    // Every first request leaves in this same tick, so the batch link sends them as one HTTP request.
    const ui = this.#ui;
    for (const call of batch.calls) {
      if (call.module !== UI_MODULE || !ui) {
        invokes.push(call);
        continue;
      }
      // A call must always settle, or the guest waits for it until its deadline.
      void ui
        .serve(batch.run_id, call, isCurrent)
        .catch((): WireCallResult => failedCall(call, pageFailure()))
        .then(settle);
    }
    if (invokes.length === 0) return;
    const sent = current.setup.socket
      ? invokeEach(this.#api, batch.run_id, invokes, isCurrent, settle, current.setup.maxMessageBytes)
      : invokeMany(this.#api, batch.run_id, invokes, isCurrent, settleAll);
    void sent.catch(() => settleAll(invokes.map((call) => failedCall(call, pageFailure()))));
  }
}

/** Room left in a message for the envelope around a call's arguments (ids, module, export). */
const CALL_ENVELOPE_BYTES = 512;

/**
 * Over the socket: each call is one `run.invoke`, settled as its answer arrives. The calls of one
 * chunk are issued in one tick, so tRPC's socket client sends them as one message; a batch larger
 * than the server's message cap is split into chunks issued a task apart, and a single call larger
 * than the cap is refused here instead of being sent (the server would close the socket for it).
 */
async function invokeEach(
  api: Api,
  runId: string,
  calls: readonly WireCall[],
  isCurrent: () => boolean,
  settle: (result: WireCallResult) => void,
  maxBytes: number,
): Promise<void> {
  const budget = Math.floor(maxBytes / 2);
  let chunk: WireCall[] = [];
  let bytes = 0;
  const chunks: WireCall[][] = [chunk];
  for (const call of calls) {
    const size = JSON.stringify(call.args).length + CALL_ENVELOPE_BYTES;
    if (size > budget) {
      settle(
        failedCall(call, {
          code: "invalid_call",
          message: `The arguments of ${call.export} come to ${size} bytes; a call carries at most ${budget}. Pass less (or save it as an asset and pass its id).`,
        }),
      );
      continue;
    }
    if (bytes + size > budget && chunk.length > 0) {
      chunk = [];
      bytes = 0;
      chunks.push(chunk);
    }
    chunk.push(call);
    bytes += size;
  }
  for (const [i, group] of chunks.entries()) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 0));
    for (const call of group) void invokeOne(api, runId, call, isCurrent).then(settle);
  }
}

async function invokeOne(api: Api, runId: string, call: WireCall, isCurrent: () => boolean): Promise<WireCallResult> {
  const send = () =>
    api.run.invoke.mutate({ runId, module: call.module, export: call.export, args: call.args, callId: call.callId });
  for (;;) {
    let answer: unknown;
    try {
      answer = await resend(send, isCurrent);
    } catch (err) {
      if (err instanceof MessageTooLargeError) return failedCall(call, { code: "invalid_call", message: err.message });
      return failedCall(call, unreachable(err));
    }
    const read = readAnswer(answer);
    if (!("pending" in read)) return callResult(call.callId, read);
    if (!isCurrent())
      return failedCall(call, { code: "run_ended", message: "The action ended while this call waited." });
  }
}

/**
 * Sends `calls` as one `run.invokeMany` and settles each answer group as it arrives (the group's
 * results together); calls answered `{pending: true}` (waiting for a person past the server's hold) go
 * again, same callIds, while the action runs. Every call settles exactly once (the settle batcher
 * ignores nothing, so neither may we).
 */
async function invokeMany(
  api: Api,
  runId: string,
  calls: readonly WireCall[],
  isCurrent: () => boolean,
  settle: (results: WireCallResult[]) => void,
): Promise<void> {
  let waiting = calls;
  while (waiting.length > 0) {
    const open = new Map(waiting.map((call) => [call.callId, call]));
    const again: WireCall[] = [];
    try {
      const stream =
        waiting.length === 1
          ? lone(api, runId, waiting[0] as WireCall)
          : await api.run.invokeMany.mutate({
              runId,
              calls: waiting.map((call) => ({
                module: call.module,
                export: call.export,
                args: call.args,
                callId: call.callId,
              })),
            });
      for await (const raw of stream) {
        const group = AnswerGroup.safeParse(raw);
        if (!group.success) continue;
        const settled: WireCallResult[] = [];
        for (const { callId, answer } of group.data) {
          const call = open.get(callId);
          if (!call) continue;
          open.delete(callId);
          // Parsed already (AnswerGroup): a pending call goes again, anything else settles as it is.
          if (!("pending" in answer)) settled.push(callResult(call.callId, answer));
          else if (isCurrent()) again.push(call);
          else
            settled.push(failedCall(call, { code: "run_ended", message: "The action ended while this call waited." }));
        }
        settle(settled);
      }
    } catch (err) {
      settle([...open.values()].map((call) => failedCall(call, unreachable(err))));
      open.clear();
    }
    // A stream that ended without answering a call: say so rather than leave the guest waiting.
    settle([...open.values()].map((call) => failedCall(call, pageFailure())));
    waiting = again;
  }
}

/** A lone call goes as `run.invoke`, unbatched (plain JSON, no stream framing); its answer as one group. */
async function* lone(api: Api, runId: string, call: WireCall): AsyncGenerator<unknown> {
  const answer = await api.run.invoke.mutate({
    runId,
    module: call.module,
    export: call.export,
    args: call.args,
    callId: call.callId,
  });
  yield [{ callId: call.callId, answer }];
}

function failedCall(call: WireCall, error: FailurePayload): WireCallResult {
  return callResult(call.callId, { ok: false, error });
}

function pageFailure(): FailurePayload {
  return { code: "capability_failed", message: "The page could not serve this call; nothing more is known." };
}

function unreachable(err: unknown): FailurePayload {
  return {
    code: "capability_failed",
    message: `The server could not be reached: ${err instanceof Error ? err.message : "network error"}. Retry later.`,
  };
}

function failed(code: FailurePayload["code"], message: string, ms: number): Observation {
  return { ok: false, error: { code, message }, logs: [], calls: [], duration_ms: ms };
}
