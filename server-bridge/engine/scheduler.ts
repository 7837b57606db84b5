/**
 * Runs a plan: nodes in dependency order, independent branches concurrently up to a bound, values
 * passed along edges. The first failure stops the run and names its node; an abort of `signal` stops
 * it at once. Either way the result settles without waiting for executors that ignore their signal:
 * nodes still running are recorded as cancelled and their late results are dropped.
 *
 * Synchronous executors complete inside the pump loop (no promise per node), which is what keeps the
 * per-node overhead small; the loop yields to the event loop every few hundred nodes so a large graph
 * never starves the server.
 */

import type { FailurePayload } from "../../shared/protocol/errors.ts";
import { isCodedError } from "../../shared/protocol/errors.ts";
import { inputProblem } from "./inputs.ts";
import type { Plan, PlannedNode } from "./plan.ts";
import { type NodeContext, NodeError, type NodeOutputs } from "./types.ts";

export type NodeStatus = "pending" | "running" | "completed" | "failed" | "cancelled" | "skipped";

export interface NodeRecord {
  status: NodeStatus;
  started_at?: number;
  duration_ms?: number;
  outputs?: NodeOutputs;
  error?: FailurePayload;
}

export interface RunFailure extends FailurePayload {
  node_id?: string;
  node_type?: string;
}

export interface ExecutionResult {
  status: "completed" | "failed" | "cancelled";
  records: NodeRecord[];
  outputs: Record<string, unknown>;
  error?: RunFailure;
}

export interface ExecuteOptions {
  signal: AbortSignal;
  concurrency: number;
  nodeTimeoutMs: number;
  invoke: NodeContext["invoke"];
  code?: NodeContext["code"];
  workflowInputs: Readonly<Record<string, unknown>>;
  onNodeStart?(node: PlannedNode, record: NodeRecord): void;
  onNodeEnd?(node: PlannedNode, record: NodeRecord): void;
}

const YIELD_EVERY = 256;

export interface Execution {
  /** Live per-node records, indexed like `plan.nodes`; settled (no `running`) once `result` resolves. */
  readonly records: NodeRecord[];
  readonly result: Promise<ExecutionResult>;
}

export function executePlan(plan: Plan, options: ExecuteOptions): Execution {
  const { nodes } = plan;
  const records: NodeRecord[] = nodes.map(() => ({ status: "pending" }));
  const remaining = nodes.map((n) => n.upstream);
  const queue: number[] = [];
  for (const n of nodes) if (n.upstream === 0) queue.push(n.index);
  const stop = new AbortController();
  let head = 0;
  let running = 0;
  let pumping = false;
  let settled = false;
  let resolveRun!: (result: ExecutionResult) => void;
  const done = new Promise<ExecutionResult>((resolve) => {
    resolveRun = resolve;
  });

  const finish = (status: ExecutionResult["status"], error?: RunFailure) => {
    if (settled) return;
    settled = true;
    options.signal.removeEventListener("abort", onAbort);
    for (const record of records) {
      if (record.status === "running") record.status = "cancelled";
      else if (record.status === "pending") record.status = "skipped";
    }
    if (!stop.signal.aborted) stop.abort(status);
    const result: ExecutionResult = {
      status,
      records,
      outputs: status === "completed" ? collectOutputs(plan, records) : {},
    };
    if (error) result.error = error;
    resolveRun(result);
  };
  const onAbort = () => finish("cancelled", { code: "cancelled", message: cancelMessage(options.signal.reason) });
  if (options.signal.aborted) {
    onAbort();
    return { records, result: done };
  }
  options.signal.addEventListener("abort", onAbort, { once: true });

  const fail = (node: PlannedNode, error: FailurePayload) => {
    const record = records[node.index] as NodeRecord;
    record.status = "failed";
    record.error = error;
    options.onNodeEnd?.(node, record);
    finish("failed", {
      ...error,
      message: `Node "${node.node.id}" (${node.type.id}) failed: ${error.message}`,
      node_id: node.node.id,
      node_type: node.type.id,
    });
  };

  const complete = (node: PlannedNode, started: number, outcome: NodeOutputs | undefined, error?: unknown) => {
    if (settled) return;
    running--;
    const record = records[node.index] as NodeRecord;
    record.duration_ms = performance.now() - started;
    if (error !== undefined || outcome === undefined) {
      fail(node, asFailure(error));
      return;
    }
    record.status = "completed";
    record.outputs = outcome;
    options.onNodeEnd?.(node, record);
    for (const next of node.dependents) {
      if (--(remaining[next] as number) === 0) queue.push(next);
    }
    if (!pumping) pump();
  };

  const start = (node: PlannedNode) => {
    running++;
    const record = records[node.index] as NodeRecord;
    record.status = "running";
    record.started_at = Date.now();
    options.onNodeStart?.(node, record);
    const started = performance.now();
    let inputs: Record<string, unknown> = node.literals as Record<string, unknown>;
    if (node.wires.length > 0) {
      inputs = { ...node.literals };
      for (const wire of node.wires) {
        const value = records[wire.source]?.outputs?.[wire.handle];
        const problem = wire.check ? inputProblem(wire.check, value) : undefined;
        if (problem) {
          const source = nodes[wire.source]?.node.id;
          const why = `input "${wire.input}" ${problem} (from node "${source}", output "${wire.handle}").`;
          return complete(node, started, undefined, new NodeError(why));
        }
        inputs[wire.input] = value;
      }
    }
    const ctx: NodeContext = {
      signal: stop.signal,
      invoke: options.invoke,
      code: options.code,
      workflowInputs: options.workflowInputs,
      data: node.node.data,
    };
    let result: NodeOutputs | Promise<NodeOutputs>;
    try {
      result = node.executor(inputs, ctx);
    } catch (err) {
      return complete(node, started, undefined, err);
    }
    if (!(result instanceof Promise)) return complete(node, started, result);
    const timer = setTimeout(
      () =>
        complete(
          node,
          started,
          undefined,
          new NodeError(`it ran longer than ${options.nodeTimeoutMs} ms and was stopped.`, "timeout"),
        ),
      options.nodeTimeoutMs,
    );
    result.then(
      (value) => {
        clearTimeout(timer);
        complete(node, started, value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        complete(node, started, undefined, err ?? new Error("rejected"));
      },
    );
  };

  const pump = () => {
    pumping = true;
    let burst = 0;
    try {
      while (!settled && running < options.concurrency && head < queue.length) {
        if (++burst > YIELD_EVERY) {
          setImmediate(pump);
          return;
        }
        start(nodes[queue[head++] as number] as PlannedNode);
      }
    } finally {
      pumping = false;
    }
    if (!settled && running === 0 && head === queue.length) finish("completed");
  };

  pump();
  return { records, result: done };
}

function asFailure(err: unknown): FailurePayload {
  if (isCodedError(err)) return err.payload;
  return unexpectedFailure(err);
}

/**
 * An executor threw something other than a coded error (a bug, or a host library's own error): the
 * client gets a fixed message; the host error (its text may name paths or internals) goes to the
 * server log only.
 */
export function unexpectedFailure(err: unknown, what = "The node"): FailurePayload {
  console.error(`${what} threw an unexpected error:`, err);
  return {
    code: "capability_failed",
    message: `${what} hit an unexpected error on the server (the server log has the detail). Check its inputs and try again; if it keeps failing, report it.`,
  };
}

function cancelMessage(reason: unknown): string {
  if (typeof reason === "string" && reason.length > 0 && reason.length < 300) return reason;
  return "The job was cancelled; nodes that had not finished were stopped.";
}

/** workflow.output values by name; with none declared, the outputs of every node nothing reads. */
function collectOutputs(plan: Plan, records: readonly NodeRecord[]): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  if (plan.outputs.length > 0) {
    for (const { name, index } of plan.outputs) outputs[name] = records[index]?.outputs?.value;
    return outputs;
  }
  for (const node of plan.nodes) {
    if (node.dependents.length === 0) outputs[node.node.id] = records[node.index]?.outputs ?? {};
  }
  return outputs;
}
