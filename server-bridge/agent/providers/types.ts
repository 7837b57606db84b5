/**
 * What a model provider adapter implements (server only: provider keys never leave the server). One
 * adapter per wire format: OpenAI-compatible Chat Completions (OpenAI, OpenRouter, Ollama, vLLM, LM
 * Studio, llama.cpp server) and Anthropic Messages, each over its official SDK. Adapters translate
 * the provider-neutral conversation (shared/agent/messages.ts) to the provider's request and its
 * stream back to ModelEvents; they never throw for a provider failure: refused connection, 401, 429
 * (retried with backoff a bounded number of times, honouring retry-after), 5xx (retried likewise),
 * a stream cut mid-message: each ends the turn with one `error` event whose message is sanitised
 * (no key, masked or not, no host detail) and safe to store and show.
 */
import type { AgentMessage, ModelEvent } from "../../../shared/agent/messages.ts";

/** A tool as the model is offered it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's input (an object schema). */
  input_schema: Record<string, unknown>;
}

/**
 * The conversation as it goes to a provider: image requests already resolved to pixels (`image`
 * parts), and every execute_code tool result already rendered to text (`text` parts).
 */
export interface ProviderRequest {
  model: string;
  system: string;
  messages: readonly AgentMessage[];
  tools: readonly ToolSpec[];
  /** Output tokens this turn may use. */
  maxOutputTokens: number;
  signal: AbortSignal;
}

export interface ProviderAdapter {
  readonly id: "openai" | "anthropic";
  /** Where it is reached (`127.0.0.1:11434`): the base URL's host, never a key. */
  readonly host: string;
  /** The models the provider lists (`GET /v1/models`); an empty list when it cannot be reached. */
  listModels(signal?: AbortSignal): Promise<string[]>;
  stream(request: ProviderRequest): AsyncIterable<ModelEvent>;
}

export interface ProviderConfig {
  /** From the server's configuration only, never from a request. */
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  /** Retries of a 429 or 5xx before the turn fails (default 2). */
  maxRetries?: number;
  /** Per request (connect to last byte), default 10 minutes. */
  timeoutMs?: number;
}
