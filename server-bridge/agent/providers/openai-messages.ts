/**
 * The provider-neutral conversation (shared/agent/messages.ts) as Chat Completions messages. User
 * text-only content goes as a string (what every compatible server reads), with images as `image_url`
 * data URIs; assistant turns carry their text and `tool_calls`; tool results are `tool` messages. A
 * `tool` message cannot carry an image, so a result's images follow, after the last of that turn's
 * tool messages (the API wants them together right after the assistant), in one user message that
 * says which call they belong to.
 */
import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartImage,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { type AgentMessage, type ContentPart, userParts } from "../../../shared/agent/messages.ts";

export function toChatMessages(system: string, messages: readonly AgentMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  let pendingImages: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length) out.push({ role: "user", content: pendingImages });
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") flushImages();
    switch (message.role) {
      case "user": {
        const content = userContent(userParts(message));
        if (content !== undefined) out.push({ role: "user", content });
        break;
      }
      case "assistant":
        // An empty turn (interrupted before anything came) is not sent: the API refuses it.
        if (!message.text && message.tool_calls.length === 0) break;
        out.push({
          role: "assistant",
          content: message.text || null,
          ...(message.tool_calls.length
            ? {
                tool_calls: message.tool_calls.map((call) => ({
                  id: call.id,
                  type: "function" as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        });
        break;
      case "tool": {
        const images = message.content.flatMap(imagePart);
        const text = message.content.flatMap(textOf).join("\n");
        out.push({
          role: "tool",
          tool_call_id: message.tool_call_id,
          content: text || (images.length ? "The image is in the next message." : "(no output)"),
        });
        if (images.length) {
          pendingImages.push(
            { type: "text", text: `The image from the ${message.name} result (${message.tool_call_id}):` },
            ...images,
          );
        }
        break;
      }
      default:
        return message satisfies never;
    }
  }
  flushImages();
  return out;
}

function userContent(parts: readonly ContentPart[]): string | ChatCompletionContentPart[] | undefined {
  if (parts.every((part) => part.type !== "image")) {
    const text = parts.flatMap(textOf).join("\n\n");
    return text || undefined;
  }
  return parts.flatMap((part): ChatCompletionContentPart[] =>
    part.type === "image" ? imagePart(part) : textOf(part).map((text) => ({ type: "text", text })),
  );
}

function imagePart(part: ContentPart): ChatCompletionContentPartImage[] {
  return part.type === "image"
    ? [{ type: "image_url", image_url: { url: `data:${part.media_type};base64,${part.data}` } }]
    : [];
}

/** Text of a part; an unresolved image request (the server resolves them first) says so rather than vanish. */
function textOf(part: ContentPart): string[] {
  if (part.type === "text") return part.text ? [part.text] : [];
  if (part.type === "image_request") return ["(an image was requested here but could not be shown)"];
  return [];
}
