/**
 * The agent's conversation and the model's stream, provider-neutral (DESIGN.md section 11): what the
 * CodeAct loop holds, what a thread stores, and what crosses the page <-> server boundary when the page
 * runs the loop. Zod schemas with inferred types; every message from the other side is parsed before use.
 * Provider adapters (server-bridge/agent/providers) translate to and from the wire formats of OpenAI
 * Chat Completions and Anthropic Messages.
 */
import { z } from "zod";
import { ErrorCode } from "../protocol/errors.ts";
import { Observation } from "../protocol/worker.ts";
import { ViewImageInput } from "./tools.ts";

/** The model's tool calls carry their arguments as the text the model wrote (it may not be JSON). */
export const ToolCall = z.object({
  id: z.string().min(1).max(200),
  name: z.string().max(200),
  arguments: z.string().max(2_000_000),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const ContentPart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string().max(2_000_000) }),
  /** Pixels, base64 (what view_image resolves to). */
  z.object({ type: z.literal("image"), media_type: z.enum(["image/png", "image/jpeg"]), data: z.string() }),
  /** A view_image request the server has yet to resolve (the page cannot read assets itself). */
  z.object({ type: z.literal("image_request"), request: ViewImageInput }),
]);
export type ContentPart = z.infer<typeof ContentPart>;

/**
 * Why a request ended before the model's final answer (Stop, a provider failure, the step cap, the
 * token budget), as the person was told when it happened. Stored on the request's last assistant
 * message, so every read of the thread (a reload, switching back to it) says it again.
 */
export const TurnEnd = z.object({
  status: z.enum(["stopped", "failed", "step_cap", "budget"]),
  message: z.string().max(2000),
});
export type TurnEnd = z.infer<typeof TurnEnd>;

export const AgentMessage = z.discriminatedUnion("role", [
  z.object({
    role: z.literal("user"),
    content: z.array(ContentPart).max(100),
    /** What the page showed as it was sent (the editor's open workflow, the selection): read after the text. */
    context: z.string().max(2000).optional(),
  }),
  z.object({
    role: z.literal("assistant"),
    text: z.string().max(2_000_000),
    tool_calls: z.array(ToolCall).max(50),
    /** Set when the model's turn did not finish (a cut stream, Stop, a crash): shown, never replayed silently. */
    interrupted: z.boolean().optional(),
    /** Set when the request ended with this message without a final answer: why (shown after it). */
    ended: TurnEnd.optional(),
  }),
  z.object({
    role: z.literal("tool"),
    tool_call_id: z.string().min(1).max(200),
    name: z.string().max(200),
    content: z.array(ContentPart).max(20),
    is_error: z.boolean().optional(),
    /** For execute_code: the observation itself, so a reload shows the step's calls and result. */
    observation: Observation.optional(),
  }),
]);
export type AgentMessage = z.infer<typeof AgentMessage>;

/** A user message's parts as the model reads them: the person's, then the page's context when sent. */
export function userParts(message: Extract<AgentMessage, { role: "user" }>): ContentPart[] {
  if (!message.context) return message.content;
  return [...message.content, { type: "text", text: `(Sent from the editor. ${message.context})` }];
}

export const TokenUsage = z.object({
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/** One model turn as it streams. A provider failure is an `error` event, never a throw. */
export const ModelEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), delta: z.string() }),
  z.object({ type: z.literal("tool_call"), call: ToolCall }),
  z.object({ type: z.literal("usage"), usage: TokenUsage }),
  z.object({ type: z.literal("done"), stop: z.enum(["end", "tool_calls", "length", "other"]) }),
  z.object({
    type: z.literal("error"),
    code: ErrorCode,
    /** Safe to show and store: sanitised of keys and host details. */
    message: z.string().max(2000),
  }),
]);
export type ModelEvent = z.infer<typeof ModelEvent>;

/** One message of a turn's subscription (`agent.turn`): the events published since the last one. */
export const TurnBatch = z.object({ events: z.array(ModelEvent).min(1) });
export type TurnBatch = z.infer<typeof TurnBatch>;

/** One model turn: the conversation so far in, the streamed turn out. */
export interface ModelRequest {
  messages: readonly AgentMessage[];
  /** A model id the server offers (`models.list`); the server's default when absent. */
  model?: string | undefined;
  signal: AbortSignal;
}

/**
 * Calls the model. Implemented on the server over the configured providers (which add the system
 * prompt and the two tools), and in the page over the socket to the server. Never throws.
 */
export interface ModelClient {
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}
