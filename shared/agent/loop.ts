/**
 * The CodeAct loop (DESIGN.md section 11): one implementation for every host. It sends the
 * conversation to the model, runs each `execute_code` call through the injected executor (the page's
 * Web Worker sandbox, or the Node sandbox), hands each `view_image` call to the injected viewer, returns
 * what came back as the tool result, and stops on a final answer, the step cap, the token budget, Stop,
 * or a model failure (which ends the turn with a clear message and leaves the conversation intact).
 * Malformed model output becomes a tool error the model can read and correct, never a crash.
 *
 * No DOM, no Node APIs: the model, the executor and the viewer are all injected.
 */
import type { ExecutedAction } from "../sandbox/executor.ts";
import type { AgentMessage, ContentPart, ModelClient, TokenUsage, ToolCall, TurnEnd } from "./messages.ts";
import { EXECUTE_CODE, type ExecuteCodeInput, readToolCall, type ViewImageInput } from "./tools.ts";

export const DEFAULT_STEP_CAP = 20;

export type AgentEvent =
  | { type: "text"; delta: string }
  | { type: "message"; message: AgentMessage }
  | { type: "step_started"; call: ToolCall; input?: ExecuteCodeInput | ViewImageInput }
  | { type: "usage"; usage: TokenUsage };

export type AgentStatus = "final" | TurnEnd["status"];

export interface AgentOutcome {
  status: AgentStatus;
  /** The model's final text (status `final`), or what stopped the loop, written for the person. */
  answer: string;
  /** Every message this run added to the conversation, in order. */
  added: AgentMessage[];
  usage: TokenUsage;
  steps: number;
}

export interface AgentLoopOptions {
  model: ModelClient;
  /** Runs one action; the signal aborts when Stop is pressed (the executor cancels the action). */
  execute(code: string, options: { signal: AbortSignal; input: ExecuteCodeInput }): Promise<ExecutedAction>;
  /**
   * What a view_image call shows the model: pixels, or a request the server resolves (the page);
   * `is_error` when a viewer that resolves the image itself could not show it.
   */
  viewImage(input: ViewImageInput): Promise<{ content: ContentPart[]; is_error?: boolean }>;
  /** Asked before an action runs (a `risk: "high"` action in auto mode asks the person once); false skips it. */
  admit?(input: ExecuteCodeInput): Promise<{ ok: true } | { ok: false; message: string }>;
  /** The conversation so far (a stored thread), before the new request. */
  history: readonly AgentMessage[];
  /** The person's new message. */
  request: string;
  /** What the page showed when the person sent it (the editor's open workflow and selection). */
  context?: string | undefined;
  model_id?: string | undefined;
  stepCap?: number;
  /** Tokens (input + output) this run may use; past it the loop stops after the current turn. */
  tokenBudget?: number;
  signal: AbortSignal;
  onEvent?(event: AgentEvent): void;
}

const STEP_CAP_NOTE = (cap: number) =>
  `step cap reached: this request may take at most ${cap} tool calls, so this one was not run. Answer the user now with what you have.`;

export async function runAgent(options: AgentLoopOptions): Promise<AgentOutcome> {
  const cap = options.stepCap ?? DEFAULT_STEP_CAP;
  const conversation: AgentMessage[] = [...withToolResults(options.history)];
  const added: AgentMessage[] = [];
  const usage: TokenUsage = { input_tokens: 0, output_tokens: 0 };
  let steps = 0;
  let warned = false;
  const push = (message: AgentMessage) => {
    conversation.push(message);
    added.push(message);
    options.onEvent?.({ type: "message", message });
  };
  const done = (status: AgentStatus, answer: string): AgentOutcome => ({ status, answer, added, usage, steps });

  push({
    role: "user",
    content: [{ type: "text", text: options.request }],
    ...(options.context ? { context: options.context } : {}),
  });
  for (;;) {
    if (options.signal.aborted) return done("stopped", "cancelled: Stopped by the user.");
    const streamed = await streamTurn(options, conversation, usage);
    push(streamed.message);
    if (streamed.error) return done(options.signal.aborted ? "stopped" : "failed", streamed.error);
    const calls = streamed.message.role === "assistant" ? streamed.message.tool_calls : [];
    if (calls.length === 0) return done("final", streamed.message.role === "assistant" ? streamed.message.text : "");
    // Past the cap the model is told so and gets one turn to answer; calling tools again ends the request.
    if (steps >= cap && warned) {
      for (const call of calls) push(toolError(call, "invalid_call", STEP_CAP_NOTE(cap)));
      return done("step_cap", `Stopped after ${cap} steps (the step cap) without a final answer.`);
    }
    if (steps >= cap) warned = true;
    for (const call of calls) {
      if (options.signal.aborted) {
        push(toolError(call, "cancelled", "Stopped by the user before this call ran."));
        continue;
      }
      if (steps >= cap) {
        push(toolError(call, "invalid_call", STEP_CAP_NOTE(cap)));
        continue;
      }
      steps++;
      push(await runTool(options, call));
    }
    if (options.signal.aborted) return done("stopped", "cancelled: Stopped by the user.");
    const spent = usage.input_tokens + usage.output_tokens;
    if (options.tokenBudget !== undefined && spent >= options.tokenBudget) {
      return done("budget", `Stopped: this request used ${spent} tokens, its budget is ${options.tokenBudget}.`);
    }
  }
}

/** Streams one model turn into an assistant message (marked interrupted when it did not finish). */
async function streamTurn(
  options: AgentLoopOptions,
  conversation: readonly AgentMessage[],
  usage: TokenUsage,
): Promise<{ message: AgentMessage; error?: string }> {
  let text = "";
  const calls: ToolCall[] = [];
  let error: string | undefined;
  let finished = false;
  try {
    for await (const event of options.model.stream({
      messages: conversation,
      model: options.model_id,
      signal: options.signal,
    })) {
      switch (event.type) {
        case "text":
          text += event.delta;
          options.onEvent?.({ type: "text", delta: event.delta });
          break;
        case "tool_call":
          calls.push(event.call);
          break;
        case "usage":
          usage.input_tokens += event.usage.input_tokens;
          usage.output_tokens += event.usage.output_tokens;
          options.onEvent?.({ type: "usage", usage: event.usage });
          break;
        case "done":
          finished = true;
          break;
        case "error":
          error = `${event.code}: ${event.message}`;
          break;
        default: {
          const never: never = event;
          throw new Error(`unknown model event ${JSON.stringify(never)}`);
        }
      }
      if (error) break;
    }
  } catch {
    // A model client must not throw; if one does, the turn ends like a cut stream.
    error ??= "capability_failed: The model's answer stopped unexpectedly; nothing more is known.";
  }
  if (!error && !finished) {
    error = options.signal.aborted
      ? "cancelled: Stopped by the user."
      : "capability_failed: The model's answer was cut off before it finished. Send the request again.";
  }
  if (options.signal.aborted && error) error = "cancelled: Stopped by the user.";
  const message: AgentMessage = { role: "assistant", text, tool_calls: error ? [] : calls };
  if (error) message.interrupted = true;
  return error ? { message, error } : { message };
}

async function runTool(options: AgentLoopOptions, call: ToolCall): Promise<AgentMessage> {
  const read = readToolCall(call.name, call.arguments);
  if ("error" in read) return toolError(call, read.error.code, read.error.message);
  options.onEvent?.({ type: "step_started", call, input: read.input });
  if (read.tool === EXECUTE_CODE) {
    const admitted = (await options.admit?.(read.input)) ?? { ok: true };
    if (!admitted.ok) return toolError(call, "permission_denied", admitted.message);
    const { observation } = await options.execute(read.input.code, { signal: options.signal, input: read.input });
    return {
      role: "tool",
      tool_call_id: call.id,
      name: call.name,
      content: [],
      observation,
      is_error: !observation.ok,
    };
  }
  const { content, is_error } = await options.viewImage(read.input);
  return { role: "tool", tool_call_id: call.id, name: call.name, content, ...(is_error ? { is_error } : {}) };
}

function toolError(call: ToolCall, code: string, message: string): AgentMessage {
  return {
    role: "tool",
    tool_call_id: call.id,
    name: call.name,
    content: [{ type: "text", text: `${code}: ${message}` }],
    is_error: true,
  };
}

/**
 * A stored conversation whose last turn was interrupted (a reload or a crash mid-step) may hold tool
 * calls without results; providers refuse that, so each gets a result saying it never completed.
 */
export function withToolResults(history: readonly AgentMessage[]): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let i = 0; i < history.length; i++) {
    const message = history[i] as AgentMessage;
    out.push(message);
    if (message.role !== "assistant") continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < history.length && history[j]?.role === "tool"; j++) {
      answered.add((history[j] as Extract<AgentMessage, { role: "tool" }>).tool_call_id);
    }
    const missing = message.tool_calls.filter((call) => !answered.has(call.id));
    // Results go right after the assistant's other results, before the next turn.
    let at = i + 1;
    while (at < history.length && history[at]?.role === "tool") out.push(history[at++] as AgentMessage);
    for (const call of missing) {
      out.push(
        toolError(
          call,
          "run_ended",
          "This step was interrupted (the page was reloaded or the server stopped) and did not complete.",
        ),
      );
    }
    i = at - 1;
  }
  return out;
}
