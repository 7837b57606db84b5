/**
 * Streamable HTTP sessions of clients that never close them (the SDK client and the Inspector send no
 * DELETE): the cap is per user, the user's least recently used idle session makes room, a busy one
 * (a tool call still running) is never the one closed, and an idle session is closed after the idle
 * timeout. Raw initialize requests stand in for clients that go away without a word.
 */
import { request } from "node:http";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.ts";
import { httpClient, WORKFLOWS } from "./support.ts";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "gone", version: "1" } },
});
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });

/** One POST to /mcp, read to its end. */
function post(server: TestServer, token: string, body: string, sessionId?: string) {
  return new Promise<{ status: number; sessionId: string | undefined; body: string }>((resolve, reject) => {
    const req = request(
      new URL(`${server.url}/mcp`),
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(sessionId ? { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" } : {}),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
        });
        res.on("end", () => {
          const id = res.headers["mcp-session-id"];
          resolve({ status: res.statusCode ?? 0, sessionId: typeof id === "string" ? id : undefined, body: text });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function initialize(server: TestServer, token: string): Promise<string> {
  const opened = await post(server, token, INITIALIZE);
  expect(opened.status).toBe(200);
  return opened.sessionId ?? "";
}

/** An elicitation handler that holds its answer until `release()`; `asked` settles when it is asked. */
function heldAnswer(result: ElicitResult) {
  let release = () => {};
  let asked!: () => void;
  const askedOnce = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const elicit = () =>
    new Promise<ElicitResult>((resolve) => {
      release = () => resolve(result);
      asked();
    });
  return { elicit, asked: askedOnce, release: () => release() };
}

const CREATE = `import { workflows } from "${WORKFLOWS}"; export default (await workflows.create("held")).name;`;

describe("/mcp sessions of clients that never close them", () => {
  it("opens 150 sessions without closing them, and a second user still initializes and runs", async () => {
    await using server = await startTestServer({ mcpMode: "auto" });
    const token = server.app.credentials.mcpToken;
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) ids.push(await initialize(server, token));
    const cap = server.app.config.mcpSessionsPerUser;
    expect(server.mcp.sessionCountOf("local")).toBe(cap);
    // The most recent ones live; the oldest were closed to make room.
    expect((await post(server, token, LIST, ids.at(-1))).status).toBe(200);
    expect((await post(server, token, LIST, ids[0])).status).toBe(404);

    const bob = await server.app.credentials.addUser("bob");
    await using second = await httpClient(server.url, bob.mcpToken);
    expect((await second.run("export default 6 * 7;")).observation).toMatchObject({ ok: true, result: 42 });
    expect(server.mcp.sessionCountOf(bob.userId)).toBe(1);
  });

  it("closes the user's least recently used idle session, never a busy one; all busy, only that user waits", async () => {
    await using server = await startTestServer({ mcpSessionsPerUser: 3 });
    const token = server.app.credentials.mcpToken;
    const accept = heldAnswer({ action: "accept", content: {} });
    await using busy = await httpClient(server.url, token, { elicit: accept.elicit });
    const call = busy.run(CREATE); // waits on the person's answer: its POST stays open
    await accept.asked;
    const second = await initialize(server, token);
    const third = await initialize(server, token);
    expect((await post(server, token, LIST, second)).status).toBe(200); // second is now more recent than third
    const fourth = await initialize(server, token);
    expect((await post(server, token, LIST, third)).status).toBe(404);
    expect((await post(server, token, LIST, second)).status).toBe(200);
    expect((await post(server, token, LIST, fourth)).status).toBe(200);
    accept.release();
    expect((await call).observation).toMatchObject({ ok: true, result: "held" });

    // One session per user, held by a call still waiting: that user's next one waits, others' do not.
    await using single = await startTestServer({ mcpSessionsPerUser: 1 });
    const mine = single.app.credentials.mcpToken;
    const decline = heldAnswer({ action: "decline" });
    await using holder = await httpClient(single.url, mine, { elicit: decline.elicit });
    const held = holder.run(CREATE);
    await decline.asked;
    const refused = await post(single, mine, INITIALIZE);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.message).toMatch(/Every MCP session you hold open is busy/);
    const other = await single.app.credentials.addUser("other");
    expect((await post(single, other.mcpToken, INITIALIZE)).status).toBe(200);
    decline.release();
    expect((await held).observation.error?.code).toBe("permission_denied");
    // Idle again: it makes room.
    expect((await post(single, mine, INITIALIZE)).status).toBe(200);
  });

  it("closes a session left idle past the idle timeout", async () => {
    await using server = await startTestServer({ mcpIdleMs: 1_000 });
    const token = server.app.credentials.mcpToken;
    const id = await initialize(server, token);
    expect(server.mcp.sessionCountOf("local")).toBe(1);
    for (let i = 0; i < 100 && server.mcp.sessionCountOf("local") > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(server.mcp.sessionCountOf("local")).toBe(0);
    expect((await post(server, token, LIST, id)).status).toBe(404);
  });
});
