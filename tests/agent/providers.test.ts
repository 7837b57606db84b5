/**
 * The provider adapters against the scripted model servers (real HTTP, the real wire formats, the
 * official SDKs underneath): streaming text, tool calls assembled from deltas, usage and stop
 * reasons, retries of 429 and 5xx, every failure as one coded, sanitised `error` event, Stop, the
 * turn's deadline, and the model list. The conversation's format: provider-formats.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { ProviderConfig } from "../../server-bridge/agent/providers/types.ts";
import type { FakeModelServer, ScriptedTurn } from "../support/fake-models.ts";
import {
  collect,
  errorsOf,
  KINDS,
  type Kind,
  request,
  scriptedServers,
  textOf,
  until,
  userSays,
} from "./provider-kit.ts";

const fakeFor = scriptedServers();

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

  it("shows a proxy's HTML error page as its text", async () => {
    const page: ScriptedTurn = {
      error: {
        status: 502,
        headers: { "retry-after-ms": "10" },
        body: "<html><body><h1>502 Bad Gateway</h1></body></html>",
      },
    };
    const fake = await fakeFor(kind, [page, page, page]);
    const events = await collect(adapterFor(fake).stream(request(kind, [userSays("hi")])));
    expect(events).toEqual([
      {
        type: "error",
        code: "capability_failed",
        message: expect.stringContaining("(502: 502 Bad Gateway) after 2 retries"),
      },
    ]);
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

  it("ends a turn that passes its deadline mid-stream as timeout, even after the headers came", async () => {
    const fake = await fakeFor(kind, [{ text: "too slow", delayMs: 10_000 }]);
    const events = await collect(adapterFor(fake, { timeoutMs: 300 }).stream(request(kind, [userSays("hi")])));
    expect(events).toEqual([
      { type: "error", code: "timeout", message: expect.stringContaining("did not finish its answer") },
    ]);
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

describe("the OpenAI adapter with a compatible server", () => {
  const kind = KINDS[0] as Kind;

  it("reads an error whose body's `error` is a plain string (as Ollama answers)", async () => {
    const fake = await fakeFor(kind, [{ error: { status: 404, body: { error: "model 'llama9' not found" } } }]);
    const events = await collect(kind.adapter({ baseUrl: fake.url }).stream(request(kind, [userSays("hi")])));
    expect(events).toEqual([
      { type: "error", code: "capability_failed", message: expect.stringContaining("(404: model 'llama9' not found)") },
    ]);
  });
});
