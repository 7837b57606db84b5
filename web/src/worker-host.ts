/**
 * The page's side of one sandbox Web Worker. The page compiles the wasm once and hands it over; the
 * worker script is served with a CSP that forbids network access. The page talks to the worker through
 * the typed, bounded channel (shared/sandbox/channel.ts), except for guest calls and their results,
 * which cross as one-way messages each side parses (nothing to acknowledge): the worker posts `calls`
 * batches on a dedicated port, where the page drops every other message, and the page posts `settle`
 * messages to the worker. A watchdog reads the deadline of the
 * VM slice now running from shared memory and terminates a worker whose slice overran; terminating
 * rejects every call pending on the worker at once.
 */
import wasmUrl from "@jitl/quickjs-wasmfile-release-sync/wasm?url";
import type { Endpoint } from "comlink";
import {
  CallBatch,
  type CallSettlement,
  type RunRequest,
  RunResponse,
  WORKER_API_NAMES,
} from "../../shared/protocol/worker.ts";
import { connectRemote, type RemoteChannel } from "../../shared/sandbox/channel.ts";
import { startWatchdog, type Watchdog } from "../../shared/sandbox/watchdog.ts";

let compiled: Promise<WebAssembly.Module> | undefined;

/** The QuickJS wasm, compiled once per page (a failed compile is retried next time). */
export function compiledWasm(): Promise<WebAssembly.Module> {
  compiled ??= WebAssembly.compileStreaming(fetch(wasmUrl)).catch((err: unknown) => {
    compiled = undefined;
    throw err;
  });
  return compiled;
}

const READY_TIMEOUT_MS = 20_000;
const WATCHDOG_GRACE_MS = 1_500;

export interface PageWorkerOptions {
  /** Serves a batch of guest calls; must not throw. Results go back through `settle`. */
  onCalls(batch: CallBatch): void;
  /** The worker died on its own (crash) or was killed by the watchdog. */
  onDeath(reason: string): void;
}

export class PageWorker {
  #worker: Worker;
  #remote: RemoteChannel;
  #stopServing: () => void;
  #watchdog: Watchdog;
  #dead = false;

  readonly #onDeath: (reason: string) => void;

  private constructor(
    worker: Worker,
    remote: RemoteChannel,
    stopServing: () => void,
    watchdog: Watchdog,
    onDeath: (reason: string) => void,
  ) {
    this.#worker = worker;
    this.#remote = remote;
    this.#stopServing = stopServing;
    this.#watchdog = watchdog;
    this.#onDeath = onDeath;
  }

  static async start(options: PageWorkerOptions): Promise<PageWorker> {
    const wasm = await compiledWasm();
    const worker = new Worker(new URL("../../worker/entry-browser.ts", import.meta.url), {
      type: "module",
      name: "sandbox",
    });
    const channel = new MessageChannel();
    let self: PageWorker | undefined;
    const watchdog = startWatchdog({
      graceMs: WATCHDOG_GRACE_MS,
      onOverrun: () => self?.terminate("a synchronous step of the action ran past its deadline", true),
    });
    channel.port1.onmessage = (event: MessageEvent) => {
      // The worker runs untrusted code: what it sends is parsed before use, and refused if malformed.
      const parsed = CallBatch.safeParse(event.data);
      if (!parsed.success) {
        console.warn("sandbox worker sent a malformed call batch; refused", parsed.error.issues.slice(0, 3));
        return;
      }
      options.onCalls(parsed.data);
    };
    const stopServing = () => {
      channel.port1.onmessage = null;
      channel.port1.close();
    };
    const remote = connectRemote(worker as unknown as Endpoint, WORKER_API_NAMES, 60_000);
    self = new PageWorker(worker, remote, stopServing, watchdog, options.onDeath);
    const page = self;
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      page.terminate("the sandbox worker crashed", true);
    });
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the sandbox worker did not start")), READY_TIMEOUT_MS);
      const onMessage = (event: MessageEvent) => {
        if ((event.data as { type?: unknown } | null)?.type !== "ready") return;
        clearTimeout(timer);
        worker.removeEventListener("message", onMessage);
        resolve();
      };
      worker.addEventListener("message", onMessage);
    });
    const slices = watchdog.buffer ? { sliceBuffer: watchdog.buffer } : { slicePort: watchdog.port };
    worker.postMessage(
      { type: "init", hostPort: channel.port2, wasmModule: wasm, ...slices },
      watchdog.port ? [channel.port2, watchdog.port] : [channel.port2],
    );
    try {
      await ready;
    } catch (err) {
      page.terminate("the sandbox worker did not start");
      throw err;
    }
    return page;
  }

  get dead(): boolean {
    return this.#dead;
  }

  async run(request: RunRequest, timeoutMs: number): Promise<RunResponse> {
    return RunResponse.parse(await this.#remote.call("run", request, { timeoutMs }));
  }

  /**
   * Hands call results to the worker as a one-way message (the worker parses it): nothing waits for
   * an acknowledgement, so a settlement costs each side one message instead of a request and its reply.
   */
  settle(settlement: CallSettlement): void {
    if (this.#dead) return;
    this.#worker.postMessage(settlement);
  }

  async cancel(runId: string): Promise<void> {
    if (this.#dead) return;
    await this.#remote.call("cancel", { type: "cancel", run_id: runId }, { timeoutMs: 2_000 });
  }

  /** Kills the worker; every call pending on it rejects at once. Safe to call twice. */
  terminate(reason: string, unexpected = false): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#worker.terminate();
    this.#remote.close(reason);
    this.#stopServing();
    this.#watchdog.dispose();
    if (unexpected) this.#onDeath(reason);
  }
}
