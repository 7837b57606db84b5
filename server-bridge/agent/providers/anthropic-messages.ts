/**
 * The provider-neutral conversation (shared/agent/messages.ts) as Anthropic Messages: text and image
 * blocks; assistant turns as text plus `tool_use` blocks (their `input` must be an object, so
 * arguments the model wrote that were not a JSON object travel as `{unparsed_arguments}`); tool
 * results as `tool_result` blocks (images inside, `is_error` kept) in the user turn that follows,
 * before any text. Roles alternate: neighbouring turns of one role are merged, empty ones dropped,
 * and tool ids keep to the characters the API accepts.
 */
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import { type AgentMessage, type ContentPart, type ToolCall, userParts } from "../../../shared/agent/messages.ts";

export function toAnthropicMessages(messages: readonly AgentMessage[]): MessageParam[] {
  const out: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  const add = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case "user":
        add("user", userParts(message).flatMap(block));
        break;
      case "assistant":
        add("assistant", [
          ...(message.text ? [{ type: "text" as const, text: message.text }] : []),
          ...message.tool_calls.map(toolUse),
        ]);
        break;
      case "tool":
        add("user", [toolResult(message)]);
        break;
      default:
        return message satisfies never;
    }
  }
  return out;
}

function toolUse(call: ToolCall): ContentBlockParam {
  return { type: "tool_use", id: toolId(call.id), name: call.name, input: toolInput(call.arguments) };
}

function toolResult(message: Extract<AgentMessage, { role: "tool" }>): ToolResultBlockParam {
  const content = message.content.flatMap(block) as (TextBlockParam | ImageBlockParam)[];
  return {
    type: "tool_result",
    tool_use_id: toolId(message.tool_call_id),
    content: content.length ? content : [{ type: "text", text: "(no output)" }],
    ...(message.is_error ? { is_error: true } : {}),
  };
}

function block(part: ContentPart): (TextBlockParam | ImageBlockParam)[] {
  switch (part.type) {
    case "text":
      // The API refuses empty text blocks.
      return part.text ? [{ type: "text", text: part.text }] : [];
    case "image":
      return [{ type: "image", source: { type: "base64", media_type: part.media_type, data: part.data } }];
    case "image_request":
      return [{ type: "text", text: "(an image was requested here but could not be shown)" }];
    default:
      return part satisfies never;
  }
}

function toolInput(argumentsText: string): Record<string, unknown> {
  if (argumentsText.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Not JSON: kept as the text the model wrote, below.
  }
  return { unparsed_arguments: argumentsText };
}

/** Tool ids must match ^[a-zA-Z0-9_-]+$ (ids from another provider may not). */
export function toolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool";
}
