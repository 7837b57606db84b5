/**
 * Where code nodes run: one Node sandbox host (a `worker_threads` QuickJS worker) per engine, started
 * by the first code node (a server that runs none never starts it), running one call at a time in
 * arrival order, and stopped by `dispose` when the server shuts down. Each call is a fresh QuickJS
 * runtime with the limits actions get (memory, stack, deadline, result size), nothing mounted, no
 * packs and no capability calls; code-source.ts holds the contract.
 *
 * A call waiting for its turn stops as soon as its job's signal aborts; a running one is cancelled
 * through the host. Sandbox failures come back as NodeErrors with the sandbox's code (`timeout`,
 * `memory_limit`, `import_refused`, `cancelled`, ...), never as throws of host errors.
 */
import { failure } from "../../shared/protocol/errors.ts";
import { fromWire } from "../../shared/protocol/values.ts";
import type { LimitOverrides, Observation } from "../../shared/protocol/worker.ts";
import type { CallRouter } from "../calls/router.ts";
import { type ActionRun, NodeSandboxHost, type RunActionOptions } from "../sandbox/host.ts";
import { codeAction, codeInputJson } from "./code-source.ts";
import { type CodeCall, type CodeRunner, NodeError } from "./types.ts";

export interface SandboxLike {
  runAction(options: RunActionOptions): Promise<ActionRun>;
  dispose(): Promise<void>;
}

/** The largest output a code node returns (the actions' default result cap). */
export const MAX_CODE_OUTPUT_CHARS = 1024 * 1024;
const MAX_LOG_CHARS = 4 * 1024;

/** Nothing is mounted, so a guest can make no call; should one arrive anyway, it is refused. */
const NO_CALLS: CallRouter = (calls) =>
  calls.map(() =>
    Promise.resolve({ ok: false, error: failure("unknown_module", "A code node can call no capabilities.") }),
  );

export class CodeSandbox implements CodeRunner, AsyncDisposable {
  readonly #start: () => Promise<SandboxLike>;
  #host: Promise<SandboxLike> | undefined;
  #tail: Promise<void> = Promise.resolve();
  #disposed = false;

  constructor(options: { start?: () => Promise<SandboxLike> } = {}) {
    this.#start = options.start ?? (() => NodeSandboxHost.start());
  }

  /** Whether the sandbox's worker has been started (it starts on the first code node). */
  get started(): boolean {
    return this.#host !== undefined;
  }

  async run(call: CodeCall): Promise<unknown> {
    const action = codeAction(call.code, codeInputJson(call.input));
    if (!action.ok) throw new NodeError(action.message, action.code);
    const { observation } = await this.#inTurn(call.signal, async () => {
      const host = await this.#ready();
      stopIfAborted(call.signal);
      return await host.runAction({
        action: action.source,
        mounted: [],
        packs: [],
        router: NO_CALLS,
        limits: limitsFor(call.timeoutMs),
        signal: call.signal,
      });
    });
    return outputOf(observation, { lines: action.lines, timeoutMs: call.timeoutMs });
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const host = this.#host;
    this.#host = undefined;
    if (host) await host.then((h) => h.dispose()).catch(() => undefined);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  #ready(): Promise<SandboxLike> {
    if (this.#disposed) {
      return Promise.reject(new NodeError("The server is shutting down; the code was not run.", "run_ended"));
    }
    if (!this.#host) {
      const starting: Promise<SandboxLike> = this.#start().catch(() => {
        // Not kept: the next code node tries again.
        if (this.#host === starting) this.#host = undefined;
        throw new NodeError("The code sandbox could not start on this server; try again.", "capability_unavailable");
      });
      this.#host = starting;
    }
    return this.#host;
  }

  /** Runs `fn` when every earlier call has finished; waiting ends at once when `signal` aborts. */
  async #inTurn<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    const before = this.#tail;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#tail = before.then(() => mine);
    try {
      await untilAborted(before, signal);
      try {
        return await fn();
      } catch (err) {
        if (err instanceof NodeError) throw err;
        // The host was disposed under the call (shutdown).
        throw new NodeError("The server stopped before the code finished.", "run_ended");
      }
    } finally {
      release();
    }
  }
}

function limitsFor(timeoutMs: number): LimitOverrides {
  return {
    timeout_ms: timeoutMs,
    max_calls: 0,
    approval_credit_ms: 0,
    max_result_chars: MAX_CODE_OUTPUT_CHARS,
    max_log_chars: MAX_LOG_CHARS,
    // Room for the whole result and the logs, so a result within its cap is never cut to a preview.
    max_observation_chars: MAX_CODE_OUTPUT_CHARS + MAX_LOG_CHARS + 16 * 1024,
  };
}

function stopIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new NodeError("Stopped before the code ran.", "cancelled");
}

function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  stopIfAborted(signal);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new NodeError("Stopped while waiting for the code sandbox.", "cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

/** The function's return value as a workflow value, or the observation's error as a NodeError. */
function outputOf(
  observation: Observation,
  at: { lines: { first: number; last: number }; timeoutMs: number },
): unknown {
  const tooLarge = new NodeError(
    `The function returned more than ${MAX_CODE_OUTPUT_CHARS} characters of JSON; return less (a slice, a count, only the fields needed).`,
    "result_too_large",
  );
  if (observation.ok) {
    if (observation.truncated) throw tooLarge;
    try {
      // Wire form (escaped $-keys, markers) -> a workflow value (host values: AssetRef, Uint8Array).
      return fromWire(observation.result ?? null, "output");
    } catch {
      throw new NodeError("The function's return value could not be read as JSON.", "capability_failed");
    }
  }
  const error = observation.error ?? { code: "capability_failed" as const, message: "The code failed." };
  switch (error.code) {
    case "timeout":
      throw new NodeError(
        `The code ran past its time limit of ${at.timeoutMs} ms (data.timeout_ms) and was stopped. Do less in it, or raise timeout_ms (at most 30000).`,
        "timeout",
      );
    case "cancelled":
      throw new NodeError("The code was stopped: the job was cancelled.", "cancelled");
    case "result_too_large":
      throw tooLarge;
    default: {
      const { first, last } = at.lines;
      const inCode = error.line !== undefined && error.line >= first && error.line <= last;
      const where = inCode ? ` (line ${(error.line as number) - first + 1} of the code)` : "";
      throw new NodeError(`${error.message.replace(/\b([Tt])he action\b/g, "$1he code")}${where}`, error.code);
    }
  }
}
