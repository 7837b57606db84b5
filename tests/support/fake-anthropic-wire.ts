/**
 * Anthropic Messages as the scripted server speaks it: the real event sequence (`message_start` with
 * usage, `ping`, `content_block_start` text / tool_use, `content_block_delta` text_delta /
 * input_json_delta, `content_block_stop`, `message_delta` with stop_reason and usage,
 * `message_stop`), errors as `{type: "error", error: {type, message}}`, and the 400s the real API
 * answers for a malformed conversation.
 */
import { type FakeWire, isRecord, sse, type TurnPlan } from "./fake-wire.ts";

const STOP = { end: "end_turn", tool_calls: "tool_use", length: "max_tokens" } as const;

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

export const anthropicWire: FakeWire = {
  basePath: "",
  completionPath: "/v1/messages",
  maxTokens: (body) => (typeof body.max_tokens === "number" ? body.max_tokens : undefined),
  includeUsage: () => true,
  refuse: refuseMessages,
  errorBody: (status, message) => ({ type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message } }),
  modelList: (ids) => ({
    data: ids.map((id) => ({ id, type: "model", display_name: id, created_at: "2025-01-01T00:00:00Z" })),
    has_more: false,
    first_id: ids[0] ?? null,
    last_id: ids[ids.length - 1] ?? null,
  }),
  toolCallId: (seq) => `toolu_${String(seq).padStart(6, "0")}`,
  frames: messageFrames,
};

function messageFrames(plan: TurnPlan): { head: string[]; body: string[] } {
  const event = (data: { type: string } & Record<string, unknown>) => sse(data, data.type);
  const head = [
    event({
      type: "message_start",
      message: {
        id: `msg_${Math.random().toString(36).slice(2, 14)}`,
        type: "message",
        role: "assistant",
        content: [],
        model: plan.model,
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: plan.usage.input_tokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
        },
      },
    }),
    event({ type: "ping" }),
  ];
  const body: string[] = [];
  let index = 0;
  if (plan.textChunks.length) {
    body.push(event({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
    for (const text of plan.textChunks) {
      body.push(event({ type: "content_block_delta", index, delta: { type: "text_delta", text } }));
    }
    if (plan.cut) return { head, body };
    body.push(event({ type: "content_block_stop", index }));
    index++;
  }
  if (plan.cut) return { head, body };
  for (const call of plan.toolCalls) {
    body.push(
      event({
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
      }),
    );
    for (const partial_json of ["", ...call.argumentChunks]) {
      body.push(event({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } }));
    }
    body.push(event({ type: "content_block_stop", index }));
    index++;
  }
  body.push(
    event({
      type: "message_delta",
      delta: { stop_reason: STOP[plan.stop], stop_sequence: null },
      usage: { output_tokens: plan.usage.output_tokens },
    }),
    event({ type: "message_stop" }),
  );
  return { head, body };
}

/** The checks the real API makes that an adapter could get wrong. */
function refuseMessages(body: Record<string, unknown>): string | undefined {
  if (typeof body.model !== "string" || body.model === "") return "model: Field required";
  if (typeof body.max_tokens !== "number") return "max_tokens: Field required";
  if (body.stream !== true) return "This scripted server answers streamed requests only (stream: true).";
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "messages: at least one message is required";
  let previousToolUses: string[] = [];
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message)) return `messages.${i}: Input should be a valid dictionary`;
    if (message.role !== "user" && message.role !== "assistant") {
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    }
    if (i === 0 && message.role !== "user") return 'messages: first message must use the "user" role';
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (!Array.isArray(blocks) || blocks.length === 0) return `messages.${i}: content must be a non-empty list`;
    const results: string[] = [];
    const uses: string[] = [];
    for (const [j, block] of blocks.entries()) {
      if (!isRecord(block)) return `messages.${i}.content.${j}: Input should be a valid dictionary`;
      const problem = refuseBlock(block, `messages.${i}.content.${j}`, message.role);
      if (problem) return problem;
      if (block.type === "tool_result") {
        if (results.length < j)
          return `messages.${i}: tool_result blocks must come first in the content, before any other block`;
        results.push(String(block.tool_use_id));
      }
      if (block.type === "tool_use") uses.push(String(block.id));
    }
    const unanswered = previousToolUses.filter((id) => !results.includes(id));
    if (unanswered.length) {
      return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    }
    const unexpected = results.filter((id) => !previousToolUses.includes(id));
    if (unexpected.length) {
      return `messages.${i}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(", ")}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
    previousToolUses = uses;
  }
  if (previousToolUses.length)
    return "messages: the last assistant message's `tool_use` blocks need `tool_result` blocks";
  return undefined;
}

function refuseBlock(block: Record<string, unknown>, at: string, role: unknown): string | undefined {
  switch (block.type) {
    case "text":
      return typeof block.text === "string" && block.text !== ""
        ? undefined
        : "messages: text content blocks must be non-empty";
    case "image": {
      const source = block.source;
      const ok = isRecord(source) && source.type === "base64" && typeof source.data === "string";
      return ok ? undefined : `${at}.image.source: a base64 source with media_type and data is required`;
    }
    case "tool_use":
      if (role !== "assistant") return `${at}: tool_use blocks are only allowed in assistant messages`;
      if (typeof block.id !== "string" || !/^[a-zA-Z0-9_-]+$/.test(block.id)) {
        return `${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      }
      return isRecord(block.input) ? undefined : `${at}.tool_use.input: Input should be a valid dictionary`;
    case "tool_result":
      if (role !== "user") return `${at}: tool_result blocks are only allowed in user messages`;
      if (Array.isArray(block.content)) {
        for (const [k, inner] of block.content.entries()) {
          if (!isRecord(inner)) return `${at}.content.${k}: Input should be a valid dictionary`;
          const problem = refuseBlock(inner, `${at}.content.${k}`, "tool_result");
          if (problem) return problem;
        }
      }
      return undefined;
    default:
      return `${at}: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags`;
  }
}
