/**
 * The engine's contract with executors: one pure function per node type, `(inputs, ctx) => outputs`.
 * Executors never reach the store or the network themselves; an effect is a capability call through
 * `ctx.invoke`, which is the job-scoped run's `invoke` and so passes the session's gate.
 */
import type { InvokeResult } from "../../shared/capabilities/types.ts";
import { CodedError, type ErrorCode } from "../../shared/protocol/errors.ts";

export type NodeInputs = Readonly<Record<string, unknown>>;
export type NodeOutputs = Record<string, unknown>;

export interface NodeContext {
  /** Aborts when the job is cancelled, fails elsewhere, or the node runs past its deadline. */
  readonly signal: AbortSignal;
  /** The job-scoped run's `invoke`: every effect goes through the gate. */
  invoke(capability: string, args: unknown): Promise<InvokeResult>;
  /** The values the workflow was run with (`inputs` of run_workflow), read by `workflow.input`. */
  readonly workflowInputs: Readonly<Record<string, unknown>>;
  /** The node's own `data`, for properties (`handle: false` inputs are also passed in `inputs`). */
  readonly data: Readonly<Record<string, unknown>>;
  /** The server-side sandbox code nodes run in; absent on a host without one (code.run is then unavailable). */
  readonly code?: CodeRunner | undefined;
}

/** One code node's call: its function's source, the value it is called with, its deadline. */
export interface CodeCall {
  code: string;
  input: unknown;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Runs a code node's function (engine/code-sandbox.ts): its return value, or a NodeError with the sandbox's code. */
export interface CodeRunner {
  run(call: CodeCall): Promise<unknown>;
}

export type Executor = (inputs: NodeInputs, ctx: NodeContext) => NodeOutputs | Promise<NodeOutputs>;

/** An expected node failure: thrown inside an executor, recorded on the node as a value. */
export class NodeError extends CodedError {
  constructor(message: string, code: ErrorCode = "capability_failed") {
    super({ code, message });
  }
}

/** Unwraps a capability call: its value, or a NodeError carrying the gate's code and message. */
export async function effect(ctx: NodeContext, capability: string, args: unknown): Promise<unknown> {
  const result = await ctx.invoke(capability, args);
  if (result.ok) return result.value;
  throw new NodeError(result.error.message, result.error.code);
}
