/**
 * Resuming a dropped MCP event stream (Streamable HTTP, SEP-1699): a POST stream opens with a priming
 * event (an id, empty data, a `retry` field), every event has an id, and a client whose stream dropped
 * in the middle of a tool call reconnects with GET and `Last-Event-ID`: it is sent what it missed and
 * then the rest of the call, on the new stream. Raw HTTP and a small SSE reader, so nothing in a client
 * library does the resuming for the test.
 */
import { describe, expect, it } from "vitest";
import { BoundedEventStore } from "../../server-bridge/mcp/event-store.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { WORKFLOWS } from "./support.ts";

const VERSION = "2025-11-25";

interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** Reads SSE events off a response body, one at a time. */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    async next(): Promise<SseEvent | undefined> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = { data: "" };
          for (const line of block.split("\n")) {
            const colon = line.indexOf(":");
            if (colon === 0) continue; // a comment (keep-alive)
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
            if (field === "id") event.id = value;
            else if (field === "retry") event.retry = Number(value);
            else if (field === "data") event.data += event.data ? `\n${value}` : value;
          }
          if (event.id !== undefined || event.data !== "") return event;
          continue;
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

function mcp(server: TestServer, sessionId?: string) {
  const headers = (extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${server.app.credentials.mcpToken}`,
    accept: "application/json, text/event-stream",
    "content-type": "application/json",
    ...(sessionId ? { "mcp-session-id": sessionId, "mcp-protocol-version": VERSION } : {}),
    ...extra,
  });
  return {
    post: (message: unknown, signal?: AbortSignal) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: headers(),
        body: JSON.stringify(message),
        ...(signal ? { signal } : {}),
      }),
    resume: (lastEventId: string) =>
      fetch(`${server.url}/mcp`, {
        method: "GET",
        headers: headers({ accept: "text/event-stream", "last-event-id": lastEventId }),
      }),
  };
}

async function open(server: TestServer): Promise<string> {
  const res = await mcp(server).post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: VERSION, capabilities: { elicitation: {} }, clientInfo: { name: "raw", version: "1" } },
  });
  expect(res.status).toBe(200);
  await res.text();
  const sessionId = res.headers.get("mcp-session-id") ?? "";
  await (await mcp(server, sessionId).post({ jsonrpc: "2.0", method: "notifications/initialized" })).text();
  return sessionId;
}

describe("resuming a dropped MCP event stream", () => {
  it("primes a POST stream, and replays what a dropped stream missed after Last-Event-ID, then the rest", async () => {
    await using server = await startTestServer();
    const sessionId = await open(server);
    const client = mcp(server, sessionId);
    const drop = new AbortController();
    const call = await client.post(
      {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: {
          name: "execute_code",
          arguments: {
            risk: "low",
            description: "asks first",
            code: `import { workflows } from "${WORKFLOWS}"; export default (await workflows.create("resumed")).name;`,
          },
        },
      },
      drop.signal,
    );
    expect(call.headers.get("content-type")).toContain("text/event-stream");
    const first = sseReader(call.body as ReadableStream<Uint8Array>);
    const priming = await first.next();
    expect(priming).toMatchObject({ id: expect.any(String), data: "", retry: 1000 });
    const asked = await first.next();
    const elicitation = JSON.parse(asked?.data ?? "{}") as { id: number; method: string };
    expect(asked?.id).toEqual(expect.any(String));
    expect(elicitation.method).toBe("elicitation/create");
    // The connection drops before the person answers.
    drop.abort();

    // Reconnect after the priming event, waiting `retry` first as a client does (again while the
    // server has not yet seen the old stream go): the elicitation it missed is sent again, same id.
    let resumed: Response;
    for (let attempt = 0; ; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, priming?.retry ?? 1000));
      resumed = await client.resume(priming?.id ?? "");
      if (resumed.status !== 409 || attempt === 5) break;
      await resumed.text();
    }
    expect(resumed.status).toBe(200);
    const second = sseReader(resumed.body as ReadableStream<Uint8Array>);
    const replayed = await second.next();
    expect(replayed?.id).toBe(asked?.id);
    expect(JSON.parse(replayed?.data ?? "{}")).toMatchObject({ id: elicitation.id, method: "elicitation/create" });

    // The answer goes up as a POST; the tool's result comes down the resumed stream.
    const answered = await client.post({
      jsonrpc: "2.0",
      id: elicitation.id,
      result: { action: "accept", content: {} },
    });
    expect(answered.status).toBe(202);
    const seen: { id?: number; method?: string; result?: { structuredContent: unknown } }[] = [];
    for (;;) {
      const event = await second.next();
      expect(event?.id).toEqual(expect.any(String));
      seen.push(JSON.parse(event?.data ?? "{}"));
      if (seen.at(-1)?.id === 7) break;
    }
    expect(seen.at(-1)?.result?.structuredContent).toMatchObject({ ok: true, result: "resumed" });
    // An answered prompt is never reported to the client as cancelled.
    expect(seen.filter((m) => m.method === "notifications/cancelled")).toEqual([]);
    await second.cancel();

    // An id the store never gave out is refused, so the client starts afresh.
    expect((await client.resume("999999")).status).toBe(400);
  });

  it("keeps a bounded number of events per session, dropping the oldest first", async () => {
    const store = new BoundedEventStore({ maxEvents: 3, maxBytes: 1 << 20 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await store.storeEvent("s", { jsonrpc: "2.0", method: "n", params: { i } }));
    expect(store.size).toBe(3);
    expect(await store.getStreamIdForEventId(ids[0] as string)).toBeUndefined();
    const sent: unknown[] = [];
    await store.replayEventsAfter(ids[2] as string, { send: async (_id, message) => void sent.push(message) });
    expect(sent).toEqual([
      { jsonrpc: "2.0", method: "n", params: { i: 3 } },
      { jsonrpc: "2.0", method: "n", params: { i: 4 } },
    ]);
    const small = new BoundedEventStore({ maxEvents: 100, maxBytes: 200 });
    for (let i = 0; i < 10; i++) await small.storeEvent("s", { jsonrpc: "2.0", method: "x".repeat(50) });
    expect(small.size).toBeLessThan(10);
  });
});
