/**
 * The OpenAI-compatible Chat Completions adapter (OpenAI, OpenRouter, Ollama, vLLM, LM Studio,
 * llama.cpp server: anything serving `/v1/chat/completions`), over the official `openai` SDK: its
 * streaming API, its retries (maxRetries, honouring retry-after) and its error classes. The
 * conversation goes out as Chat Completions messages (openai-messages.ts); the chunks come back as
 * ModelEvents: text at once, each tool call once its deltas are whole, then usage, then done.
 * The client is configured only from ProviderConfig (no environment variable is read by the SDK).
 */
import { randomUUID } from "node:crypto";
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { ModelEvent, ToolCall } from "../../../shared/agent/messages.ts";
import { hostOf, type ProviderLabels, type SdkErrors, sdkFault } from "./failures.ts";
import { toChatMessages } from "./openai-messages.ts";
import { cappedRetryFetch } from "./retry.ts";
import { type TurnAssembler, turnStream } from "./stream.ts";
import type { ProviderAdapter, ProviderConfig, ProviderRequest } from "./types.ts";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
const MODEL_LIST_MAX = 1000;

export function createOpenAIProvider(config: ProviderConfig): ProviderAdapter {
  const baseURL = config.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
  const retries = config.maxRetries ?? 2;
  const timeoutMs = config.timeoutMs ?? 10 * 60_000;
  const client = new OpenAI({
    baseURL,
    // A local server (Ollama, llama.cpp) needs no key: then no Authorization header is sent at all.
    apiKey: config.apiKey ?? "",
    ...(config.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: retries,
    timeout: timeoutMs,
    fetch: cappedRetryFetch(),
    logLevel: "off",
  });
  const labels: ProviderLabels = {
    host: hostOf(baseURL),
    keyVariable: "OPENAI_API_KEY",
    urlVariable: "OPENAI_BASE_URL",
    retries,
    timeoutMs,
    secrets: [config.apiKey],
  };
  // OpenAI itself wants max_completion_tokens (its reasoning models refuse max_tokens); the
  // compatible servers know max_tokens.
  const officialApi = labels.host === "api.openai.com";

  return {
    id: "openai",
    host: labels.host,
    async listModels(signal) {
      try {
        const ids: string[] = [];
        for await (const model of client.models.list({ signal, maxRetries: 1, timeout: 15_000 })) {
          ids.push(model.id);
          if (ids.length >= MODEL_LIST_MAX) break;
        }
        return ids;
      } catch {
        return [];
      }
    },
    stream(request) {
      const body = chatRequest(request, officialApi);
      return turnStream<ChatCompletionChunk>({
        signal: request.signal,
        deadlineMs: timeoutMs,
        open: (signal) => client.chat.completions.create(body, { signal }),
        assembler: chatAssembler(),
        classify: (err, phase) => sdkFault(err, phase, OPENAI_ERRORS),
        labels,
      });
    },
  };
}

export function chatRequest(request: ProviderRequest, officialApi: boolean): ChatCompletionCreateParamsStreaming {
  return {
    model: request.model,
    messages: toChatMessages(request.system, request.messages),
    ...(request.tools.length
      ? {
          tools: request.tools.map((tool) => ({
            type: "function" as const,
            function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
          })),
        }
      : {}),
    ...(officialApi ? { max_completion_tokens: request.maxOutputTokens } : { max_tokens: request.maxOutputTokens }),
    stream: true,
    stream_options: { include_usage: true },
  };
}

const STOP: Record<string, Extract<ModelEvent, { type: "done" }>["stop"]> = {
  stop: "end",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
  length: "length",
};

/** Assembles tool calls from their deltas (by index; a new id at a used index starts a new call). */
export function chatAssembler(): TurnAssembler<ChatCompletionChunk> {
  const calls: { id: string; name: string; arguments: string }[] = [];
  const slotOf = new Map<number, number>();
  let finish: string | undefined;
  let emitted = false;
  let usage: { input_tokens: number; output_tokens: number } | undefined;
  const toolCallEvents = (): ModelEvent[] => {
    if (emitted) return [];
    emitted = true;
    return calls.map((call) => ({ type: "tool_call", call: completeCall(call) }));
  };
  return {
    push(chunk) {
      const events: ModelEvent[] = [];
      if (chunk.usage) {
        usage = { input_tokens: chunk.usage.prompt_tokens ?? 0, output_tokens: chunk.usage.completion_tokens ?? 0 };
      }
      const choice = chunk.choices?.find((c) => c.index === 0) ?? chunk.choices?.[0];
      if (!choice) return events;
      const delta = choice.delta ?? {};
      if (delta.content) events.push({ type: "text", delta: delta.content });
      for (const part of delta.tool_calls ?? []) {
        let slot = slotOf.get(part.index);
        const current = slot === undefined ? undefined : calls[slot];
        if (current === undefined || (part.id && current.id && part.id !== current.id)) {
          slot = calls.push({ id: "", name: "", arguments: "" }) - 1;
          slotOf.set(part.index, slot);
        }
        const call = calls[slot as number] as { id: string; name: string; arguments: string };
        if (part.id) call.id = part.id;
        if (part.function?.name && !call.name) call.name = part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
      }
      if (choice.finish_reason) {
        finish = choice.finish_reason;
        events.push(...toolCallEvents());
      }
      return events;
    },
    finish() {
      if (finish === undefined) return undefined;
      // Some compatible servers finish a tool-calling turn with "stop".
      const stop = calls.length && finish === "stop" ? "tool_calls" : (STOP[finish] ?? "other");
      return [...toolCallEvents(), ...(usage ? [{ type: "usage" as const, usage }] : []), { type: "done", stop }];
    },
  };
}

/** A call that came without an id gets a fresh one (ids pair calls with results across the thread). */
function completeCall(call: { id: string; name: string; arguments: string }): ToolCall {
  const id = call.id || `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
  return { id, name: call.name.slice(0, 200), arguments: call.arguments };
}

export const OPENAI_ERRORS: SdkErrors<APIError> = {
  abort: APIUserAbortError,
  timeout: APIConnectionTimeoutError,
  connection: APIConnectionError,
  api: APIError,
  // `error` is the body's `error` field: an object with a message, or (Ollama, some proxies) a string.
  providerText: (err) => {
    const body = err.error as { message?: unknown } | string | undefined;
    if (typeof body === "string") return body;
    return typeof body?.message === "string" ? body.message : undefined;
  },
};
