/**
 * `/trpc` streaming on the wire: a batch's headers and head leave before a held call settles (the
 * headers travel with the first lines, not on their own), and an event stream whose client goes away
 * is dropped on the server (the response's close still aborts what runs for an unfinished answer).
 */
import { describe, expect, it } from "vitest";
import { startTestServer, WORKFLOWS } from "../support/server.ts";

/** Reads the body until it contains `marker` (or ends); returns what was read. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, marker: string): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(marker)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

describe("/trpc streaming", () => {
  it("answers a streamed batch's headers and head while a call in it still waits on an approval", async () => {
    await using server = await startTestServer();
    const { sessionId } = await server.script.session.create.mutate({ mode: "default" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const headers = {
      authorization: `Bearer ${server.token}`,
      "content-type": "application/json",
      "trpc-accept": "application/jsonl",
    };
    const body = {
      0: { runId, module: WORKFLOWS, export: "list", args: [], callId: "read" },
      1: { runId, module: WORKFLOWS, export: "create", args: [{ name: "held" }], callId: "write" },
    };
    const res = await fetch(`${server.url}/trpc/run.invoke,run.invoke?batch=1`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    // The response has begun while the write is still waiting for a person.
    // (The approval row is written once its hash is computed, a moment after the call arrived.)
    await expect
      .poll(async () => (await server.script.approvals.pending.query({ sessionId })).approvals.map((a) => a.capability))
      .toEqual(["create_workflow"]);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const text = await readUntil(reader, '"workflows"');
    // The read's result streamed back although the write in the same batch has not settled.
    expect(text).toContain('"ok":true');
    expect(await server.app.approvals.pending(sessionId)).toHaveLength(1);
    await server.script.run.end.mutate({ runId });
    while (!(await reader.read()).done) {
      // drain: ending the run settles the held call, and the response ends
    }
  });

  it("drops an event stream's subscription when its client goes away", async () => {
    await using server = await startTestServer();
    const cookie = await server.login();
    const { sessionId } = await server.script.session.create.mutate({ mode: "default" });
    const abort = new AbortController();
    const input = encodeURIComponent(JSON.stringify({ sessionId }));
    const res = await fetch(`${server.url}/trpc/session.events?input=${input}`, {
      headers: { cookie, origin: server.url, "sec-fetch-site": "same-origin", accept: "text/event-stream" },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const text = await readUntil(reader, "connected");
    expect(text).toContain("connected");
    // tRPC says "connected" as the stream opens; the subscription listens once its session is read.
    await expect.poll(() => server.app.bus.listenerCount(sessionId)).toBe(1);
    abort.abort();
    await reader.cancel().catch(() => {});
    while (server.app.bus.listenerCount(sessionId) !== 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.app.bus.listenerCount(sessionId)).toBe(0);
  });
});
