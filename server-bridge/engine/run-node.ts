/**
 * One node run on its own (`nodes.run_node`): inputs checked against the node type's metadata as a
 * graph would check `node.data`, the executor called with the calling run's `invoke` (so an effect
 * passes the same gate), bounded by a deadline and the run's signal.
 */
import { closestNames } from "../../shared/capabilities/table.ts";
import type { InvokeResult } from "../../shared/capabilities/types.ts";
import { findNodeType, nodeTypeIds } from "../../shared/graph/node-types.ts";
import { CodedError } from "../../shared/protocol/errors.ts";
import { EXECUTORS } from "./executors/index.ts";
import { literalInputs } from "./inputs.ts";
import { inputArgumentText } from "./problems.ts";
import { unexpectedFailure } from "./scheduler.ts";
import type { CodeRunner, NodeOutputs } from "./types.ts";

export interface RunNodeOptions {
  signal: AbortSignal;
  invoke(capability: string, args: unknown): Promise<InvokeResult>;
  timeoutMs: number;
  /** Runs code.run; absent: code.run answers capability_unavailable. */
  code?: CodeRunner | undefined;
}

export async function runNode(
  nodeType: string,
  inputs: Record<string, unknown>,
  options: RunNodeOptions,
): Promise<NodeOutputs> {
  const type = findNodeType(nodeType);
  const executor = EXECUTORS.get(nodeType);
  if (type?.note) {
    throw new CodedError({
      code: "capability_failed",
      message: `${nodeType} is a note for people on the canvas: it does not run.`,
    });
  }
  if (!type || !executor) {
    const near = closestNames(nodeType, nodeTypeIds());
    const hint = near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "";
    throw new CodedError({
      code: "capability_failed",
      message: `There is no node type "${nodeType}".${hint} nodes.list() lists them.`,
      suggestions: near,
    });
  }
  const literal = literalInputs(type, inputs, new Set());
  if (literal.problems.length > 0) {
    const texts = literal.problems.map(inputArgumentText);
    throw new CodedError({
      code: "invalid_tool_arguments",
      message: `Inputs for ${nodeType} do not fit: ${texts.map((t) => t.message).join("; ")}. nodes.info("${nodeType}") lists its inputs.`,
      issues: texts.map((t) => t.issue),
    });
  }
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort("timeout"), options.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline.signal]);
  let onAbort: (() => void) | undefined;
  let stopError: CodedError | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => {
      stopError = deadline.signal.aborted
        ? new CodedError({
            code: "timeout",
            message: `${nodeType} ran longer than ${options.timeoutMs} ms and was stopped.`,
          })
        : new CodedError({ code: "run_ended", message: `The run ended while ${nodeType} ran; it was stopped.` });
      reject(stopError);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  stopped.catch(() => {});
  try {
    return await Promise.race([
      Promise.resolve().then(() =>
        executor(literal.values, {
          signal,
          invoke: options.invoke,
          code: options.code,
          workflowInputs: {},
          data: inputs,
        }),
      ),
      stopped,
    ]);
  } catch (err) {
    if (err === stopError) throw err;
    if (err instanceof CodedError) {
      throw new CodedError({ ...err.payload, message: `Node ${nodeType} failed: ${err.payload.message}` });
    }
    throw new CodedError(unexpectedFailure(err, `Node ${nodeType}`));
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
