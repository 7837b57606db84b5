/**
 * The provider adapters against the scripted model servers (real HTTP, the real wire formats, the
 * official SDKs underneath): streaming text, tool calls assembled from deltas, usage and stop
 * reasons, retries of 429 and 5xx, every failure as one coded, sanitised `error` event, Stop, the
 * conversation in each provider's own format (images included), and the model list.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicAdapter } from "../../server-bridge/agent/providers/anthropic.ts";
import { chatRequest, createOpenAIAdapter } from "../../server-bridge/agent/providers/openai.ts";
import type { ProviderAdapter, ProviderConfig, ProviderRequest } from "../../server-bridge/agent/providers/types.ts";
import { type AgentMessage, ModelEvent } from "../../shared/agent/messages.ts";
import {
  type FakeModelServer,
  type ScriptedTurn,
  startFakeAnthropic,
  startFakeOpenAI,
} from "../support/fake-models.ts";

const OPENAI_KEY = "sk-proj-Zq8fakeKeyForTests0123456789abcdWXYZ";
const ANTHROPIC_KEY = "sk-ant-api03-fakeKeyForTests0123456789abcdQRST";

interface Kind {
  name: "openai" | "anthropic";
  start(options?: { script?: ScriptedTurn[]; models?: string[] }): Promise<FakeModelServer>;
  adapter(config: ProviderConfig): ProviderAdapter;
  key: string;
  keyVariable: string;
  model: string;
}

const KINDS: Kind[] = [
  {
    name: "openai",
    start: startFakeOpenAI,
    adapter: createOpenAIAdapter,
    key: OPENAI_KEY,
    keyVariable: "OPENAI_API_KEY",
    model: "gpt-fake-1",
  },
  {
    name: "anthropic",
    start: startFakeAnthropic,
    adapter: createAnthropicAdapter,
    key: ANTHROPIC_KEY,
    keyVariable: "ANTHROPIC_API_KEY",
    model: "claude-fake-1",
  },
];

const TOOLS: ProviderRequest["tools"] = [
  {
    name: "execute_code",
    description: "Run one JavaScript action.",
    input_schema: { type: "object", properties: { code: { type: "string" } }, required: ["code"] },
  },
  {
    name: "view_image",
    description: "Look at an image.",
    input_schema: { type: "object", properties: { image_id: { type: "string" } }, required: ["image_id"] },
  },
];

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const userSays = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }] });

function request(kind: Kind, messages: AgentMessage[], overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    model: kind.model,
    system: "You are a test assistant.",
    messages,
    tools: TOOLS,
    maxOutputTokens: 1000,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Every event, each checked against the ModelEvent schema (a message over 2000 characters fails). */
async function collect(stream: AsyncIterable<unknown>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(ModelEvent.parse(event));
  return events;
}

const textOf = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("");
const errorsOf = (events: ModelEvent[]) => events.filter((e) => e.type === "error");

const open: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((fake) => fake.close()));
});

async function fakeFor(kind: Kind, script: ScriptedTurn[] = [], models?: string[]): Promise<FakeModelServer> {
  const fake = await kind.start({ script, ...(models ? { models } : {}) });
  open.push(fake);
  return fake;
}

describe.each(KINDS)("the $name adapter", (kind) => {
  const adapterFor = (fake: FakeModelServer, config: Partial<ProviderConfig> = {}) =>
    kind.adapter({ baseUrl: fake.url, apiKey: kind.key, ...config });

  it("streams text in several deltas, then usage, then done", async () => {
    const fake = await fakeFor(kind, [
      { text: "Hello there, this is the answer.", usage: { input_tokens: 42, output_tokens: 7 } },
    ]);
    const events = await collect(adapterFor(fake).stream(request(kind, [userSays("hi")])));
    expect(events.filter((e) => e.type === "text").length).toBeGreaterThan(1);
    expect(textOf(events)).toBe("Hello there, this is the answer.");
    expect(events.slice(-2)).toEqual([
      { type: "usage", usage: { input_tokens: 42, output_tokens: 7 } },
      { type: "done", stop: "end" },
    ]);
    expect(fake.requests).toHaveLength(1);
  });

  it("sends the key to the provider", async () => {
    const fake = await fakeFor(kind, [{ text: "ok" }]);
    await collect(adapterFor(fake).stream(request(kind, [userSays("hi")])));
    expect(fake.headers[0]?.authorization).toBe(`Bearer ${kind.key}`);
  });

  it("assembles two parallel tool calls from their deltas, keeping arguments as the model wrote them", async () => {
    const code = JSON.stringify({
      title: "List",
      risk: "low",
      description: "List workflows.",
      code: "export default 1;",
    });
    const broken = '{"image_id": "ast_1", "question": "what is th';
    const fake = await fakeFor(kind, [
      {
        text: "Let me look.",
        tool_calls: [
          { name: "execute_code", arguments: code },
          { id: "call_given_2", name: "view_image", arguments: broken },
        ],
      },
    ]);
    const events = await collect(adapterFor(fake).stream(request(kind, [userSays("list them")])));
    const calls = events.flatMap((e) => (e.type === "tool_call" ? [e.call] : []));
    expect(calls).toEqual([
      { id: expect.stringMatching(/^(call|toolu)_/), name: "execute_code", arguments: code },
      { id: "call_given_2", name: "view_image", arguments: broken },
    ]);
    expect(textOf(events)).toBe("Let me look.");
    expect(events.at(-1)).toEqual({ type: "done", stop: "tool_calls" });
    expect(events.map((e) => e.type).indexOf("usage")).toBeGreaterThan(
      events.map((e) => e.type).lastIndexOf("tool_call"),
    );
  });

  it("reports a turn that ran into the output cap as stop length", async () => {
    const fake = await fakeFor(kind, [{ text: "truncated", usage: { input_tokens: 5, output_tokens: 50 } }]);
    const events = await collect(adapterFor(fake).stream(request(kind, [userSays("go")], { maxOutputTokens: 50 })));
    expect(events.at(-1)).toEqual({ type: "done", stop: "length" });
  });

  it("retries a 429 after its retry-after and then succeeds", async () => {
    const fake = await fakeFor(kind, [
      { error: { status: 429, headers: { "retry-after": "1" } } },
      { text: "after the wait" },
    ]);
    const events = await collect(adapterFor(fake).stream(request(kind, [userSays("hi")])));
    expect(errorsOf(events)).toEqual([]);
    expect(textOf(events)).toBe("after the wait");
    expect(fake.requests).toHaveLength(2);
  });

  it("fails a 429 that keeps coming after the retries, saying when to retry", async () => {
    const limited: ScriptedTurn = { error: { status: 429, headers: { "retry-after-ms": "20" } } };
    const fake = await fakeFor(kind, [limited, limited, limited]);
    const events = await collect(adapterFor(fake).stream(request(kind, [userSays("hi")])));
    expect(events).toEqual([
      {
        type: "error",
        code: "capability_failed",
        message: expect.stringMatching(/^Rate limited .*after 2 retries; retry after 1 s\.$/),
      },
    ]);
    expect(fake.requests).toHaveLength(3);
  });

  it("does not sit out a retry-after longer than the cap: it fails at once and says when to retry", async () => {
    const fake = await fakeFor(kind, [
      { error: { status: 429, headers: { "retry-after": "120" } } },
      { text: "never" },
    ]);
    const events = await collect(adapterFor(fake).stream(request(kind, [userSays("hi")])));
    expect(events).toEqual([
      { type: "error", code: "capability_failed", message: expect.stringContaining("retry after 120 s") },
    ]);
    expect(fake.requests).toHaveLength(1);
  });

  it("fails a 500 that persists through the retries with the provider's message", async () => {
    const failing: ScriptedTurn = {
      error: {
        status: 500,
        body:
          kind.name === "openai"
            ? { error: { message: "upstream exploded" } }
            : { type: "error", error: { type: "api_error", message: "upstream exploded" } },
      },
    };
    const fake = await fakeFor(kind, [failing, failing, failing]);
    const events = await collect(adapterFor(fake).stream(request(kind, [userSays("hi")])));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", code: "capability_failed" });
    expect(errorsOf(events)[0]?.message).toMatch(/500: upstream exploded.*after 2 retries/);
    expect(fake.requests).toHaveLength(3);
  });

  it("answers a 401 as unauthorized, naming the variable to check, without retrying", async () => {
    const fake = await fakeFor(kind, [{ error: { status: 401 } }, { text: "never" }]);
    const events = await collect(adapterFor(fake).stream(request(kind, [userSays("hi")])));
    expect(events).toEqual([
      {
        type: "error",
        code: "unauthorized",
        message: expect.stringMatching(new RegExp(`refused the key.*check ${kind.keyVariable}`)),
      },
    ]);
    expect(fake.requests).toHaveLength(1);
  });

  it("answers a refused connection as capability_unavailable naming the host only", async () => {
    const fake = await fakeFor(kind);
    const url = fake.url;
    await fake.close();
    const host = new URL(url).host;
    const events = await collect(
      kind
        .adapter({ baseUrl: `${url}/secret-path`, apiKey: kind.key, maxRetries: 1 })
        .stream(request(kind, [userSays("hi")])),
    );
    expect(events).toEqual([
      {
        type: "error",
        code: "capability_unavailable",
        message: expect.stringContaining(`at ${host} (connection refused)`),
      },
    ]);
    expect(errorsOf(events)[0]?.message).not.toContain("secret-path");
  });

  it("ends a stream cut mid-message with 'cut off', after the text that came", async () => {
    const fake = await fakeFor(kind, [{ text: "This answer is cut in the middle of a word.", cutAfterChars: 17 }]);
    const events = await collect(adapterFor(fake).stream(request(kind, [userSays("hi")])));
    expect(textOf(events)).toBe("This answer is cu");
    expect(events.at(-1)).toEqual({
      type: "error",
      code: "capability_failed",
      message: expect.stringContaining("cut off"),
    });
    expect(events.some((e) => e.type === "done")).toBe(false);
  });

  it("stops mid-stream when the signal aborts: one cancelled event, nothing after", async () => {
    const fake = await fakeFor(kind, [{ text: "too late", delayMs: 10_000 }]);
    const stop = new AbortController();
    const collecting = collect(adapterFor(fake).stream(request(kind, [userSays("hi")], { signal: stop.signal })));
    await until(() => fake.requests.length === 1);
    stop.abort();
    expect(await collecting).toEqual([{ type: "error", code: "cancelled", message: expect.any(String) }]);
  });

  it("does not call the provider when the signal is already aborted", async () => {
    const fake = await fakeFor(kind, [{ text: "never" }]);
    const events = await collect(
      adapterFor(fake).stream(request(kind, [userSays("hi")], { signal: AbortSignal.abort() })),
    );
    expect(events).toEqual([{ type: "error", code: "cancelled", message: expect.any(String) }]);
    expect(fake.requests).toHaveLength(0);
  });

  it("never lets an error body that echoes a key, masked or whole, reach the event", async () => {
    const echo = `Incorrect API key provided: ${kind.key.slice(0, 8)}****************${kind.key.slice(-4)}. Also ${kind.key}, Bearer ${kind.key}, sk-...abcd and sk-**** at /home/runner/app/server.js, see https://platform.example/account/api-keys?key=${kind.key}`;
    const body =
      kind.name === "openai"
        ? { error: { message: echo, type: "invalid_request_error" } }
        : { type: "error", error: { type: "authentication_error", message: echo } };
    const fake = await fakeFor(kind, [{ error: { status: 401, body } }]);
    const [event] = await collect(adapterFor(fake).stream(request(kind, [userSays("hi")])));
    expect(event).toMatchObject({ type: "error", code: "unauthorized" });
    const message = event?.type === "error" ? event.message : "";
    for (const leak of [
      kind.key,
      kind.key.slice(-4),
      kind.key.slice(0, 12),
      "sk-",
      "****",
      "abcd",
      "/home/runner",
      "api-keys",
    ]) {
      expect(message).not.toContain(leak);
    }
    expect(message).toContain("[redacted]");
    expect(message).toContain("https://platform.example");
  });

  it("lists the provider's models, and none when it cannot be reached", async () => {
    const fake = await fakeFor(kind, [], ["model-a", "model-b"]);
    const adapter = adapterFor(fake);
    expect(await adapter.listModels()).toEqual(["model-a", "model-b"]);
    fake.models.push("model-c");
    expect(await adapter.listModels()).toEqual(["model-a", "model-b", "model-c"]);
    await fake.close();
    expect(await adapter.listModels()).toEqual([]);
  });
});

/** A conversation with everything a thread holds: images from the person and from a tool, two calls, an error result. */
const CONVERSATION: AgentMessage[] = [
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this picture?" },
      { type: "image", media_type: "image/png", data: PNG },
    ],
  },
  {
    role: "assistant",
    text: "Let me look closer.",
    tool_calls: [
      { id: "call_a", name: "view_image", arguments: '{"image_id":"ast_1"}' },
      { id: "call_b", name: "execute_code", arguments: '{"code": "oops' },
    ],
  },
  {
    role: "tool",
    tool_call_id: "call_a",
    name: "view_image",
    content: [{ type: "image", media_type: "image/png", data: PNG }],
  },
  {
    role: "tool",
    tool_call_id: "call_b",
    name: "execute_code",
    content: [{ type: "text", text: "invalid_tool_arguments: the arguments are not JSON" }],
    is_error: true,
  },
  userSays("And now?"),
];

describe("the conversation in OpenAI's format", () => {
  const kind = KINDS[0] as Kind;

  it("carries user images as image_url parts and a tool's images in a user message after the tool messages", async () => {
    const fake = await fakeFor(kind, [{ text: "A red pixel." }]);
    const events = await collect(
      kind.adapter({ baseUrl: fake.url, apiKey: kind.key }).stream(request(kind, CONVERSATION)),
    );
    expect(errorsOf(events)).toEqual([]);
    const image = { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } };
    expect(fake.requests[0]).toMatchObject({
      model: "gpt-fake-1",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1000,
      tools: [
        {
          type: "function",
          function: {
            name: "execute_code",
            description: "Run one JavaScript action.",
            parameters: TOOLS[0]?.input_schema,
          },
        },
        { type: "function", function: { name: "view_image" } },
      ],
      messages: [
        { role: "system", content: "You are a test assistant." },
        { role: "user", content: [{ type: "text", text: "What is in this picture?" }, image] },
        {
          role: "assistant",
          content: "Let me look closer.",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "view_image", arguments: '{"image_id":"ast_1"}' } },
            { id: "call_b", type: "function", function: { name: "execute_code", arguments: '{"code": "oops' } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "The image is in the next message." },
        { role: "tool", tool_call_id: "call_b", content: "invalid_tool_arguments: the arguments are not JSON" },
        { role: "user", content: [{ type: "text", text: "The image from the view_image result (call_a):" }, image] },
        { role: "user", content: "And now?" },
      ],
    });
  });

  it("asks OpenAI itself for max_completion_tokens, which its reasoning models require", () => {
    const body = chatRequest(request(kind, [userSays("hi")]), true);
    expect(body).toMatchObject({ max_completion_tokens: 1000 });
    expect(body).not.toHaveProperty("max_tokens");
  });

  it("sends no Authorization header when no key is configured (a local server)", async () => {
    const fake = await fakeFor(kind, [{ text: "ok" }]);
    const events = await collect(createOpenAIAdapter({ baseUrl: fake.url }).stream(request(kind, [userSays("hi")])));
    expect(textOf(events)).toBe("ok");
    expect(fake.headers[0]).not.toHaveProperty("authorization");
  });
});

describe("the conversation in Anthropic's format", () => {
  const kind = KINDS[1] as Kind;

  it("carries images as base64 blocks and tool results (images, is_error) first in the next user turn", async () => {
    const fake = await fakeFor(kind, [{ text: "A red pixel." }]);
    const events = await collect(
      kind.adapter({ baseUrl: fake.url, apiKey: kind.key }).stream(request(kind, CONVERSATION)),
    );
    expect(errorsOf(events)).toEqual([]);
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } };
    expect(fake.requests[0]).toEqual({
      model: "claude-fake-1",
      max_tokens: 1000,
      system: "You are a test assistant.",
      stream: true,
      tools: TOOLS.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.input_schema })),
      messages: [
        { role: "user", content: [{ type: "text", text: "What is in this picture?" }, image] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Let me look closer." },
            { type: "tool_use", id: "call_a", name: "view_image", input: { image_id: "ast_1" } },
            { type: "tool_use", id: "call_b", name: "execute_code", input: { unparsed_arguments: '{"code": "oops' } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_a", content: [image] },
            {
              type: "tool_result",
              tool_use_id: "call_b",
              content: [{ type: "text", text: "invalid_tool_arguments: the arguments are not JSON" }],
              is_error: true,
            },
            { type: "text", text: "And now?" },
          ],
        },
      ],
    });
  });

  it("keeps tool ids from another provider within the characters Anthropic accepts", async () => {
    const fake = await fakeFor(kind, [{ text: "ok" }]);
    const messages: AgentMessage[] = [
      userSays("go"),
      { role: "assistant", text: "", tool_calls: [{ id: "call:1/x", name: "execute_code", arguments: "{}" }] },
      { role: "tool", tool_call_id: "call:1/x", name: "execute_code", content: [] },
    ];
    const events = await collect(kind.adapter({ baseUrl: fake.url, apiKey: kind.key }).stream(request(kind, messages)));
    expect(errorsOf(events)).toEqual([]);
    expect(fake.requests[0]).toMatchObject({
      messages: [
        {},
        { content: [{ type: "tool_use", id: "call_1_x", input: {} }] },
        {
          content: [{ type: "tool_result", tool_use_id: "call_1_x", content: [{ type: "text", text: "(no output)" }] }],
        },
      ],
    });
  });
});

describe.each(KINDS)("the scripted $name server", (kind) => {
  it("refuses a tool call left without its result, as the real API does (the format checks above mean something)", async () => {
    const fake = await fakeFor(kind, [{ text: "never" }]);
    const messages: AgentMessage[] = [
      userSays("go"),
      { role: "assistant", text: "", tool_calls: [{ id: "call_lonely", name: "execute_code", arguments: "{}" }] },
      userSays("and?"),
    ];
    const events = await collect(kind.adapter({ baseUrl: fake.url, apiKey: kind.key }).stream(request(kind, messages)));
    expect(events).toEqual([
      {
        type: "error",
        code: "capability_failed",
        message: expect.stringMatching(/refused the request \(400: .*call_lonely/),
      },
    ]);
  });
});

/** A bounded wait for a condition the fake server makes true. */
async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("the condition did not come true");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
