/**
 * The Anthropic Messages adapter over the official `@anthropic-ai/sdk`: its streaming API
 * (`messages.create({stream: true})`), its retries (maxRetries, honouring retry-after) and its error
 * classes. The conversation goes out as Messages (anthropic-messages.ts); the events come back as
 * ModelEvents: text deltas at once, each `tool_use` block once it stops, then usage (input counts
 * cached tokens too), then done. The client is configured only from ProviderConfig: no environment
 * variable, profile or credentials file is read by the SDK.
 */
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk";
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import type { ModelEvent } from "../../../shared/agent/messages.ts";
import { toAnthropicMessages } from "./anthropic-messages.ts";
import { hostOf, type ProviderLabels, type SdkErrors, sdkFault } from "./failures.ts";
import { cappedRetryFetch } from "./retry.ts";
import { type TurnAssembler, turnStream } from "./stream.ts";
import type { ProviderAdapter, ProviderConfig, ProviderRequest } from "./types.ts";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
const MODEL_LIST_MAX = 1000;

export function createAnthropicProvider(config: ProviderConfig): ProviderAdapter {
  const baseURL = config.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL;
  const retries = config.maxRetries ?? 2;
  const timeoutMs = config.timeoutMs ?? 10 * 60_000;
  const client = new Anthropic({
    baseURL,
    // An explicit credential keeps the SDK from its default chain (environment, profiles on disk);
    // without a key no Authorization header is sent and the provider answers 401.
    apiKey: config.apiKey ?? "",
    ...(config.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
    webhookKey: null,
    maxRetries: retries,
    timeout: timeoutMs,
    fetch: cappedRetryFetch(),
    logLevel: "off",
  });
  const labels: ProviderLabels = {
    host: hostOf(baseURL),
    keyVariable: "ANTHROPIC_API_KEY",
    urlVariable: "ANTHROPIC_BASE_URL",
    retries,
    timeoutMs,
    secrets: [config.apiKey],
  };

  return {
    id: "anthropic",
    host: labels.host,
    async listModels(signal) {
      try {
        const ids: string[] = [];
        for await (const model of client.models.list({ limit: 100 }, { signal, maxRetries: 1, timeout: 15_000 })) {
          ids.push(model.id);
          if (ids.length >= MODEL_LIST_MAX) break;
        }
        return ids;
      } catch {
        return [];
      }
    },
    stream(request) {
      const body = messagesRequest(request);
      return turnStream<RawMessageStreamEvent>({
        signal: request.signal,
        deadlineMs: timeoutMs,
        open: (signal) => client.messages.create(body, { signal }),
        assembler: messagesAssembler(),
        classify: (err, phase) => sdkFault(err, phase, ANTHROPIC_ERRORS),
        labels,
      });
    },
  };
}

function messagesRequest(request: ProviderRequest): MessageCreateParamsStreaming {
  return {
    model: request.model,
    max_tokens: request.maxOutputTokens,
    ...(request.system ? { system: request.system } : {}),
    messages: toAnthropicMessages(request.messages),
    ...(request.tools.length
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: tool.input_schema as { type: "object" },
          })),
        }
      : {}),
    stream: true,
  };
}

const STOP: Record<string, Extract<ModelEvent, { type: "done" }>["stop"]> = {
  end_turn: "end",
  stop_sequence: "end",
  tool_use: "tool_calls",
  max_tokens: "length",
  model_context_window_exceeded: "length",
};

interface Usage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

function inputTokens(usage: Usage): number | undefined {
  if (usage.input_tokens == null) return undefined;
  return usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}

export function messagesAssembler(): TurnAssembler<RawMessageStreamEvent> {
  const tools = new Map<number, { id: string; name: string; arguments: string }>();
  let input = 0;
  let output = 0;
  let stopReason: string | null | undefined;
  let stopped = false;
  return {
    push(event) {
      switch (event.type) {
        case "message_start":
          input = inputTokens(event.message.usage) ?? input;
          output = event.message.usage.output_tokens ?? output;
          return [];
        case "content_block_start": {
          const block = event.content_block;
          if (block.type === "tool_use") tools.set(event.index, { id: block.id, name: block.name, arguments: "" });
          return block.type === "text" && block.text ? [{ type: "text", delta: block.text }] : [];
        }
        case "content_block_delta": {
          const delta = event.delta;
          if (delta.type === "text_delta") return delta.text ? [{ type: "text", delta: delta.text }] : [];
          const tool = tools.get(event.index);
          if (delta.type === "input_json_delta" && tool) tool.arguments += delta.partial_json;
          return [];
        }
        case "content_block_stop": {
          const tool = tools.get(event.index);
          if (!tool) return [];
          tools.delete(event.index);
          // A tool called with no input streams no JSON at all: its input is {}.
          return [
            { type: "tool_call", call: { ...tool, name: tool.name.slice(0, 200), arguments: tool.arguments || "{}" } },
          ];
        }
        case "message_delta":
          stopReason = event.delta.stop_reason;
          input = inputTokens(event.usage) ?? input;
          output = event.usage.output_tokens ?? output;
          return [];
        case "message_stop":
          stopped = true;
          return [];
        default:
          return [];
      }
    },
    finish() {
      if (!stopped) return undefined;
      return [
        { type: "usage", usage: { input_tokens: input, output_tokens: output } },
        { type: "done", stop: (stopReason && STOP[stopReason]) || "other" },
      ];
    },
  };
}

export const ANTHROPIC_ERRORS: SdkErrors<APIError> = {
  abort: APIUserAbortError,
  timeout: APIConnectionTimeoutError,
  connection: APIConnectionError,
  api: APIError,
  providerText: (err) => err.apiMessage,
};
