/**
 * The one contract every sandbox that runs actions implements: the page's Web Worker host
 * (web/src/sandbox-client.ts), the Node sandbox host and the pool over them (server-bridge/sandbox),
 * and whatever the agent loop is given as its executor.
 *
 * `run` never throws and never rejects. Whatever happens (the action failed, was refused before it
 * ran, timed out, was cancelled, its worker died, the sandbox is shutting down), the answer is an
 * Observation whose `error.code` says which, with a message written for the model that reads it.
 * A throw from `run` is a bug of the executor, not a way to report a failure.
 */
import type { ErrorCode } from "../protocol/errors.ts";
import { fromWire, toReadable } from "../protocol/values.ts";
import type { Observation } from "../protocol/worker.ts";

/**
 * What every executor answers: at least the observation, whose `result` is readable JSON (keys as the
 * action wrote them; see `toReadable`), never the escaped wire form.
 */
export interface ExecutedAction {
  observation: Observation;
  /**
   * The result as host values (`AssetRef`, `Uint8Array`), for a caller that keeps working with it (a
   * code node's output, the page's Result): present when the observation is ok and not truncated.
   */
  value?: unknown;
}

/**
 * Runs one action (an ES module's source). `TOptions` is what this executor needs beside the source
 * (the page needs nothing: `void`; the Node host needs the mounted modules and a call router).
 */
export interface ActionExecutor<TOptions = void, TAnswer extends ExecutedAction = ExecutedAction> {
  run(action: string, options: TOptions): Promise<TAnswer>;
}

/** An executor that holds workers: `dispose` ends them (runs still waiting answer `run_ended`). */
export interface DisposableExecutor<TOptions = void, TAnswer extends ExecutedAction = ExecutedAction>
  extends ActionExecutor<TOptions, TAnswer>,
    AsyncDisposable {
  dispose(): Promise<void>;
}

/** The observation of an action that did not run to its end through the sandbox's own path. */
export function failedObservation(code: ErrorCode, message: string, durationMs: number): Observation {
  return { ok: false, error: { code, message }, logs: [], calls: [], duration_ms: Math.round(durationMs) };
}

/**
 * A worker's observation (its result in the boundary encoding) as an executor answers it: the result
 * decoded once, here, into `value`, and shown as readable JSON. A result that does not decode (a worker
 * that broke the encoding) fails the action rather than reaching a reader half-read.
 */
export function readObservation(wire: Observation): ExecutedAction {
  if (!wire.ok || wire.result === undefined) return { observation: wire };
  let value: unknown;
  try {
    value = fromWire(wire.result, "result");
  } catch {
    return {
      observation: {
        ...failedObservation("action_failed", "The action's result could not be read.", wire.duration_ms),
        logs: wire.logs,
        calls: wire.calls,
      },
    };
  }
  const observation = { ...wire, result: toReadable(value, "result") };
  return wire.truncated ? { observation } : { observation, value };
}
