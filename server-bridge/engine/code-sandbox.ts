/**
 * Where code nodes run: the process's sandbox pool (server-bridge/sandbox/pool.ts), the same workers
 * MCP and the CLI use, each call counted against the user whose job runs it (`forUser`), so one user's
 * runaway code waits behind their own work and never holds up another's. Each call is a fresh QuickJS
 * runtime with the limits actions get (memory, stack, deadline, result size), nothing mounted, no
 * packs and no capability calls; code-source.ts holds the contract.
 *
 * A call still waiting for a worker stops as soon as its job's signal aborts; a running one is
 * cancelled through the host. Sandbox failures come back as NodeErrors with the sandbox's code
 * (`timeout`, `memory_limit`, `import_refused`, `cancelled`, ...), never as throws of host errors.
 */
import { failure } from "../../shared/protocol/errors.ts";
import type { LimitOverrides } from "../../shared/protocol/worker.ts";
import type { ExecutedAction } from "../../shared/sandbox/executor.ts";
import type { CallRouter } from "../calls/router.ts";
import type { NodeExecutor } from "../sandbox/host.ts";
import type { PoolRunOptions } from "../sandbox/pool.ts";
import { codeAction, codeInputJson } from "./code-source.ts";
import { type CodeCall, type CodeRunner, NodeError } from "./types.ts";

/** The largest output a code node returns (its own cap: a node passes data on, an action answers a model). */
export const MAX_CODE_OUTPUT_CHARS = 1024 * 1024;
const MAX_LOG_CHARS = 4 * 1024;

/** Nothing is mounted, so a guest can make no call; should one arrive anyway, it is refused. */
const NO_CALLS: CallRouter = (calls) =>
  calls.map(() =>
    Promise.resolve({ ok: false, error: failure("unknown_module", "A code node can call no capabilities.") }),
  );

export class CodeSandbox {
  readonly #sandbox: Pick<NodeExecutor<PoolRunOptions>, "run"> & { readonly started: boolean };
  #closed = false;

  constructor(options: { sandbox: Pick<NodeExecutor<PoolRunOptions>, "run"> & { readonly started: boolean } }) {
    this.#sandbox = options.sandbox;
  }

  /** Whether the sandbox's workers have been started (a server that runs no code never starts them). */
  get started(): boolean {
    return this.#sandbox.started;
  }

  /** The code runner a job (or a single node run) of `user` gets: its calls count against that user. */
  forUser(user: string): CodeRunner {
    return { run: (call) => this.#run(user, call) };
  }

  /** Refuses code nodes from now on (shutdown); the pool itself is disposed by its owner. */
  close(): void {
    this.#closed = true;
  }

  async #run(user: string, call: CodeCall): Promise<unknown> {
    if (this.#closed) throw new NodeError("The server is shutting down; the code was not run.", "run_ended");
    const action = codeAction(call.code, codeInputJson(call.input));
    if (!action.ok) throw new NodeError(action.message, action.code);
    if (call.signal.aborted) throw new NodeError("Stopped before the code ran.", "cancelled");
    const answer = await this.#sandbox.run(action.source, {
      user,
      mounted: [],
      packs: [],
      router: NO_CALLS,
      limits: limitsFor(call.timeoutMs),
      signal: call.signal,
    });
    return outputOf(answer, { lines: action.lines, timeoutMs: call.timeoutMs });
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

/** The function's return value as a workflow value, or the observation's error as a NodeError. */
function outputOf(
  { observation, value }: ExecutedAction,
  at: { lines: { first: number; last: number }; timeoutMs: number },
): unknown {
  const tooLarge = new NodeError(
    `The function returned more than ${MAX_CODE_OUTPUT_CHARS} characters of JSON; return less (a slice, a count, only the fields needed).`,
    "result_too_large",
  );
  if (observation.ok) {
    if (observation.truncated) throw tooLarge;
    // Decoded where the sandbox answered (host values: AssetRef, Uint8Array); the observation's own
    // result is the readable form, which is never decoded again.
    return value ?? null;
  }
  const error = observation.error ?? { code: "action_failed" as const, message: "The code failed." };
  switch (error.code) {
    case "timeout":
      throw new NodeError(
        `The code ran past its time limit of ${at.timeoutMs} ms (its "timeout_ms") and was stopped. Do less in it, or raise timeout_ms (at most 30000).`,
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
