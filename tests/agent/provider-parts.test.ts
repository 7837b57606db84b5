/**
 * The adapters' parts that no scripted server can drive on its own: the sanitiser on the shapes
 * providers echo, the OpenAI assembler on the quirks of compatible servers, the Anthropic assembler
 * on a tool called with no input, the turn stream's Stop while an SDK is still sleeping before a
 * retry, and the cap on a retry-after wait.
 */

import { APIError as AnthropicAPIError } from "@anthropic-ai/sdk";
import { APIError as OpenAIAPIError } from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { ANTHROPIC_ERRORS, messagesAssembler } from "../../server-bridge/agent/providers/anthropic.ts";
import { faultEvent, sdkFault } from "../../server-bridge/agent/providers/failures.ts";
import { chatAssembler, OPENAI_ERRORS } from "../../server-bridge/agent/providers/openai.ts";
import { cappedRetryFetch } from "../../server-bridge/agent/providers/retry.ts";
import { PROVIDER_TEXT_MAX, sanitiseProviderText } from "../../server-bridge/agent/providers/sanitise.ts";
import { turnStream } from "../../server-bridge/agent/providers/stream.ts";
import type { ModelEvent } from "../../shared/agent/messages.ts";

describe("sanitiseProviderText", () => {
  const key = "sk-proj-AbCdEf0123456789ghijklmnopQRSTuvwx";

  it.each([
    ["Incorrect API key provided: sk-proj-********************uvwx.", "Incorrect API key provided: [redacted]."],
    ["invalid x-api-key: sk-ant-api03-abcDEF_123-xyz", "invalid x-api-key: [redacted]"],
    ["key sk-...abcd was revoked", "key [redacted] was revoked"],
    ["key sk-**** is masked", "key [redacted] is masked"],
    ["Authorization: Bearer eyJhbGciOi.payload.sig failed", "Authorization: Bearer [redacted] failed"],
    ["api_key=abc123secret&x=1", "api_key=[redacted]&x=1"],
    ["token abcd****wxyz expired", "token [redacted] expired"],
    ["OpenRouter key sk-or-v1-0123456789abcdef0123 is out of credits", "OpenRouter key [redacted] is out of credits"],
  ])("redacts %j", (input, expected) => {
    expect(sanitiseProviderText(input)).toBe(expected);
  });

  it("redacts the configured key, and its head or tail when echoed alone", () => {
    const out = sanitiseProviderText(`got ${key} then ${key.slice(0, 10)}… and …${key.slice(-8)}`, [key]);
    expect(out).not.toContain(key.slice(0, 10));
    expect(out).not.toContain(key.slice(-8));
    expect(out).toContain("[redacted]");
  });

  it("keeps a URL's origin only, drops host paths, folds markup and whitespace", () => {
    const out = sanitiseProviderText(
      "<html><h1>502</h1>\n  see https://user:pw@proxy.example:8443/internal/x?key=1 or file:///etc/x, at /home/runner/app/server.js:12 and C:\\Users\\me\\app.js</html>",
    );
    expect(out).toBe("502 see https://proxy.example:8443 or [url] at [path]:12 and [path]");
  });

  it("leaves ordinary provider text alone", () => {
    const text = "This model's maximum context length is 128000 tokens. Please reduce the length of the messages.";
    expect(sanitiseProviderText(text)).toBe(text);
  });

  it("caps the length", () => {
    const out = sanitiseProviderText("word ".repeat(500));
    expect(out.length).toBe(PROVIDER_TEXT_MAX);
    expect(out.endsWith("…")).toBe(true);
  });
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk =>
  ({
    id: "c",
    object: "chat.completion.chunk",
    created: 0,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  }) as ChatCompletionChunk;

function play<T>(assembler: { push(c: T): ModelEvent[]; finish(): ModelEvent[] | undefined }, chunks: T[]) {
  const events = chunks.flatMap((c) => assembler.push(c));
  return { events, closing: assembler.finish() };
}

describe("the OpenAI assembler", () => {
  it("starts a new call when a server reuses an index with a new id, and calls a tool turn finished with stop tool_calls", () => {
    const { events, closing } = play(chatAssembler(), [
      chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "execute_code", arguments: '{"code":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"1"}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: "b", function: { name: "view_image", arguments: "{}" } }] }),
      chunk({}, "stop"),
    ]);
    expect(events).toEqual([
      { type: "tool_call", call: { id: "a", name: "execute_code", arguments: '{"code":"1"}' } },
      { type: "tool_call", call: { id: "b", name: "view_image", arguments: "{}" } },
    ]);
    expect(closing).toEqual([{ type: "done", stop: "tool_calls" }]);
  });

  it("names a call that came without an id, and reports an unknown finish as other", () => {
    const { events, closing } = play(chatAssembler(), [
      chunk({ tool_calls: [{ index: 0, function: { name: "execute_code", arguments: "{}" } }] }),
      chunk({}, "content_filter"),
    ]);
    expect(events).toEqual([
      {
        type: "tool_call",
        call: { id: expect.stringMatching(/^call_\w{24}$/), name: "execute_code", arguments: "{}" },
      },
    ]);
    expect(closing).toEqual([{ type: "done", stop: "other" }]);
  });

  it("treats a stream that ended without a finish reason as unfinished", () => {
    expect(play(chatAssembler(), [chunk({ content: "half" })]).closing).toBeUndefined();
  });
});

describe("the Anthropic assembler", () => {
  it("gives a tool called with no input the arguments {} and counts cached input tokens", () => {
    const usage = { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 5, cache_read_input_tokens: 20 };
    const { events, closing } = play(messagesAssembler(), [
      { type: "message_start", message: { usage } },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "toolu_1", name: "execute_code", input: {} },
      },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
      { type: "message_stop" },
    ] as unknown as Parameters<ReturnType<typeof messagesAssembler>["push"]>[0][]);
    expect(events).toEqual([{ type: "tool_call", call: { id: "toolu_1", name: "execute_code", arguments: "{}" } }]);
    expect(closing).toEqual([
      { type: "usage", usage: { input_tokens: 35, output_tokens: 9 } },
      { type: "done", stop: "tool_calls" },
    ]);
  });
});

describe("turnStream", () => {
  const labels = { host: "h", keyVariable: "K", urlVariable: "U", retries: 2, timeoutMs: 60_000, secrets: [] };

  it("answers Stop at once while the SDK has not opened the stream (it may be sleeping before a retry)", async () => {
    const stop = new AbortController();
    const events: ModelEvent[] = [];
    const stream = turnStream<never>({
      signal: stop.signal,
      deadlineMs: 60_000,
      open: () => new Promise<never>(() => {}),
      assembler: { push: () => [], finish: () => [] },
      classify: () => ({ kind: "unknown" }),
      labels,
    });
    setTimeout(() => stop.abort(), 10);
    for await (const event of stream) events.push(event);
    expect(events).toEqual([{ type: "error", code: "cancelled", message: "The model call was stopped." }]);
  });

  it("reports a chunk the assembler cannot read as a malformed stream, not a cut", async () => {
    async function* chunks() {
      yield 1;
    }
    const events: ModelEvent[] = [];
    for await (const event of turnStream<number>({
      signal: new AbortController().signal,
      deadlineMs: 60_000,
      open: async () => chunks(),
      assembler: {
        push: () => {
          throw new TypeError("unreadable");
        },
        finish: () => [],
      },
      classify: () => ({ kind: "cut" }),
      labels,
    })) {
      events.push(event);
    }
    expect(events).toEqual([
      { type: "error", code: "capability_failed", message: expect.stringContaining("could not be read") },
    ]);
  });
});

describe("cappedRetryFetch", () => {
  const answering = (status: number, headers: Record<string, string>) =>
    cappedRetryFetch(20_000, async () => new Response("{}", { status, headers }));

  it("marks a response that asks for a longer wait than the cap as not to be retried", async () => {
    const response = await answering(429, { "retry-after": "60" })("http://x");
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(response.status).toBe(429);
  });

  it("leaves a short wait, a date within the cap, and a success alone", async () => {
    expect((await answering(429, { "retry-after": "2" })("http://x")).headers.get("x-should-retry")).toBeNull();
    const soon = new Date(Date.now() + 5_000).toUTCString();
    expect((await answering(503, { "retry-after": soon })("http://x")).headers.get("x-should-retry")).toBeNull();
    expect((await answering(200, { "retry-after": "600" })("http://x")).headers.get("x-should-retry")).toBeNull();
  });
});

describe("an error the provider reports inside the stream", () => {
  const labels = { host: "h", keyVariable: "K", urlVariable: "U", retries: 2, timeoutMs: 60_000, secrets: [] };

  it("is a failure mid-answer with the provider's words (Anthropic's SSE error event)", () => {
    const body = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
    const err = new AnthropicAPIError(undefined, body, undefined, new Headers());
    expect(faultEvent(sdkFault(err, "stream", ANTHROPIC_ERRORS), labels)).toEqual({
      type: "error",
      code: "capability_failed",
      message: "The provider failed mid-answer (Overloaded). Try again.",
    });
  });

  it("is a failure mid-answer with the provider's words (an OpenAI-compatible error chunk)", () => {
    const err = new OpenAIAPIError(undefined, { message: "upstream model crashed" }, undefined, new Headers());
    expect(faultEvent(sdkFault(err, "stream", OPENAI_ERRORS), labels)).toMatchObject({
      code: "capability_failed",
      message: "The provider failed mid-answer (upstream model crashed). Try again.",
    });
  });
});
