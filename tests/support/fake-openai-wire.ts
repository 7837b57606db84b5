/**
 * OpenAI Chat Completions as the scripted server speaks it: `chat.completion.chunk` SSE frames ending
 * in `data: [DONE]`, tool calls as `delta.tool_calls[{index, id, type, function}]` deltas, a usage
 * chunk when `stream_options.include_usage`, errors as `{error: {message, type, param, code}}`, and
 * the 400s the real API answers for a malformed conversation.
 */
import { type FakeWire, isRecord, sse, type TurnPlan } from "./fake-wire.ts";

const FINISH = { end: "stop", tool_calls: "tool_calls", length: "length" } as const;

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "invalid_request_error",
  404: "invalid_request_error",
  429: "requests",
};

export const openAIWire: FakeWire = {
  basePath: "/v1",
  completionPath: "/v1/chat/completions",
  maxTokens: (body) => {
    const max = body.max_completion_tokens ?? body.max_tokens;
    return typeof max === "number" ? max : undefined;
  },
  includeUsage: (body) => isRecord(body.stream_options) && body.stream_options.include_usage === true,
  refuse: refuseChat,
  errorBody: (status, message) => ({
    error: {
      message,
      type: ERROR_TYPES[status] ?? "server_error",
      param: null,
      code: status === 401 ? "invalid_api_key" : null,
    },
  }),
  modelList: (ids) => ({
    object: "list",
    data: ids.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "fake" })),
  }),
  toolCallId: (seq) => `call_${String(seq).padStart(4, "0")}`,
  frames: chatFrames,
};

function chatFrames(plan: TurnPlan): { head: string[]; body: string[] } {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 12)}`;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse({
      id,
      object: "chat.completion.chunk",
      created: Math.floor(Date.now() / 1000),
      model: plan.model,
      system_fingerprint: "fp_fake",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(plan.includeUsage ? { usage: null } : {}),
    });
  const head = [chunk({ role: "assistant", content: "", refusal: null })];
  const body = plan.textChunks.map((content) => chunk({ content }));
  if (plan.cut) return { head, body };
  plan.toolCalls.forEach((call, index) => {
    body.push(
      chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }),
    );
    for (const piece of call.argumentChunks)
      body.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  body.push(chunk({}, FINISH[plan.stop]));
  if (plan.includeUsage) {
    const { input_tokens, output_tokens } = plan.usage;
    body.push(
      sse({
        id,
        object: "chat.completion.chunk",
        created: Math.floor(Date.now() / 1000),
        model: plan.model,
        system_fingerprint: "fp_fake",
        choices: [],
        usage: {
          prompt_tokens: input_tokens,
          completion_tokens: output_tokens,
          total_tokens: input_tokens + output_tokens,
        },
      }),
    );
  }
  body.push(sse("[DONE]"));
  return { head, body };
}

/** The checks the real API makes that an adapter could get wrong. */
function refuseChat(body: Record<string, unknown>): string | undefined {
  if (typeof body.model !== "string" || body.model === "") return "you must provide a model parameter";
  if (body.stream !== true) return "This scripted server answers streamed requests only (stream: true).";
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "'messages' must be a non-empty array.";
  let pending: string[] = [];
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message)) return `Invalid 'messages[${i}]': expected an object.`;
    const role = message.role;
    if (role === "tool") {
      const id = message.tool_call_id;
      if (typeof id !== "string" || !pending.includes(id)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
      pending = pending.filter((p) => p !== id);
      if (hasImage(message.content)) {
        return `Invalid 'messages[${i}]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL.`;
      }
      continue;
    }
    if (pending.length) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`;
    }
    if (role === "assistant") {
      const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
      pending = calls.map((call) => (isRecord(call) ? String(call.id) : ""));
      if (message.content == null && calls.length === 0) {
        return `Invalid 'messages[${i}]': an assistant message needs content or tool_calls.`;
      }
    } else if (role !== "user" && role !== "system" && role !== "developer") {
      return `Invalid value for 'messages[${i}].role': '${String(role)}'.`;
    }
  }
  if (pending.length) {
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`;
  }
  return undefined;
}

function hasImage(content: unknown): boolean {
  return Array.isArray(content) && content.some((part) => isRecord(part) && part.type === "image_url");
}
