/**
 * What a provider is sent for one turn: the system prompt, the two tools (the same descriptions MCP
 * serves: the action contract with the compact catalog, and view_image's), and the stored
 * conversation made ready for the wire: a dangling tool call answered as interrupted, each
 * execute_code result rendered as the observation's text (images never ride it), and each view_image
 * request resolved to pixels, once, when it is stored (`resolveImages`).
 */
import { z } from "zod";
import { withToolResults } from "../../shared/agent/loop.ts";
import type { AgentMessage, ContentPart } from "../../shared/agent/messages.ts";
import {
  EXECUTE_CODE,
  ExecuteCodeInput,
  VIEW_IMAGE,
  VIEW_IMAGE_DESCRIPTION,
  ViewImageInput,
} from "../../shared/agent/tools.ts";
import { MODULE_NAMES } from "../../shared/capabilities/table.ts";
import type { AppServices } from "../app-services.ts";
import { executeCodeDescription } from "../mcp/description.ts";
import { observationResult } from "../mcp/results.ts";
import { viewImage } from "../mcp/view-image.ts";
import { defaultLibrary } from "../packs/index.ts";
import type { ToolSpec } from "./providers/types.ts";

/** The tools by deadline and mounted modules: one set per configuration and per widget's modules. */
const toolSets = new Map<string, ToolSpec[]>();

/**
 * The two tools, for actions that may import `mounted` (every namespace, unless a widget's sessions
 * mount fewer) and the first-party packs.
 */
export function agentTools(timeoutMs: number, mounted: readonly string[] = MODULE_NAMES): ToolSpec[] {
  const key = `${timeoutMs}:${mounted.join(",")}`;
  let tools = toolSets.get(key);
  if (tools) return tools;
  tools = [
    {
      name: EXECUTE_CODE,
      description: executeCodeDescription({
        mounted,
        packs: defaultLibrary().packInfo(defaultLibrary().names),
        timeoutMs,
      }),
      input_schema: z.toJSONSchema(ExecuteCodeInput) as Record<string, unknown>,
    },
    {
      name: VIEW_IMAGE,
      description: VIEW_IMAGE_DESCRIPTION,
      input_schema: z.toJSONSchema(ViewImageInput) as Record<string, unknown>,
    },
  ];
  // Widgets are registered by their owner, so the sets are few; the bound is only a backstop.
  if (toolSets.size >= 64) toolSets.clear();
  toolSets.set(key, tools);
  return tools;
}

/** Each stored action result as the provider reads it, made once per parsed message (threads.ts keeps those). */
const rendered = new WeakMap<AgentMessage, AgentMessage>();

/** The stored conversation as a provider takes it. */
export function providerMessages(stored: readonly AgentMessage[]): AgentMessage[] {
  return withToolResults(stored).map((message) => {
    if (message.role !== "tool" || !message.observation) return message;
    let shown = rendered.get(message);
    if (!shown) {
      const first = observationResult(message.observation).content[0];
      const text = first && first.type === "text" ? first.text : JSON.stringify(message.observation);
      shown = { ...message, content: [{ type: "text", text }, ...message.content] };
      rendered.set(message, shown);
    }
    return shown;
  });
}

/** A view_image call's answer as the model reads it: its text and its pixels (PNG or JPEG), and whether it failed. */
export async function imageForModel(
  app: AppServices,
  userId: string,
  input: ViewImageInput,
): Promise<{ content: ContentPart[]; is_error: boolean }> {
  const shown = await viewImage(app, userId, input);
  const content = shown.content.flatMap((item): ContentPart[] => {
    if (item.type === "text") return [{ type: "text", text: item.text }];
    if (item.type === "image" && (item.mimeType === "image/png" || item.mimeType === "image/jpeg")) {
      return [{ type: "image", media_type: item.mimeType, data: item.data }];
    }
    return [];
  });
  return { content, is_error: shown.isError === true };
}

/** Resolves the view_image requests of messages about to be stored into pixels (or a coded error text). */
export async function resolveImages(
  app: AppServices,
  userId: string,
  messages: readonly AgentMessage[],
): Promise<AgentMessage[]> {
  const out: AgentMessage[] = [];
  for (const message of messages) {
    if (message.role !== "tool" || !message.content.some((part) => part.type === "image_request")) {
      out.push(message);
      continue;
    }
    const content: ContentPart[] = [];
    let failed = false;
    for (const part of message.content) {
      if (part.type !== "image_request") {
        content.push(part);
        continue;
      }
      const shown = await imageForModel(app, userId, part.request);
      if (shown.is_error) failed = true;
      content.push(...shown.content);
    }
    out.push(failed ? { ...message, content, is_error: true } : { ...message, content });
  }
  return out;
}
