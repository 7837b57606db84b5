/**
 * MCP over Streamable HTTP at /mcp with the SDK's own client against a real server and real SQLite:
 * the guards (401, 403), sessions bound to their user, clients with colliding request ids, and the gate
 * through elicitation.
 */
import { execFile } from "node:child_process";
import { request } from "node:http";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { hashToken } from "../../server-bridge/auth/tokens.ts";
import { storeEnv } from "../support/database.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { httpClient, TIMEOUT, WORKFLOWS } from "./support.ts";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** A raw request, so Host and Origin can be anything. */
function raw(url: string, headers: Record<string, string>, body = INITIALIZE) {
  const target = new URL(`${url}/mcp`);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request(
      target,
      {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function sessionCount(server: TestServer): Promise<number> {
  return ((await server.app.store.sql("SELECT count(*) AS n FROM sessions").get()) as { n: number }).n;
}

/** A second user with an MCP token of their own. */
async function addMcpUser(server: TestServer, id: string, token: string): Promise<void> {
  await server.app.store.sql("INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)").run(id, id, Date.now());
  await server.app.store
    .sql("INSERT INTO api_tokens (token_hash, user_id, scope, created_at) VALUES (?, ?, 'mcp', ?)")
    .run(hashToken(token), id, Date.now());
}

const CREATE = (name: string) =>
  `import { workflows } from "${WORKFLOWS}"; export default (await workflows.create(${JSON.stringify(name)})).name;`;

describe("/mcp guards", () => {
  it("answers 401 with WWW-Authenticate without a valid MCP token, before any session exists", async () => {
    await using server = await startTestServer();
    const before = await sessionCount(server);
    const none = await raw(server.url, {});
    expect(none.status).toBe(401);
    expect(String(none.headers["www-authenticate"])).toMatch(/^Bearer /);
    const admin = await raw(server.url, { authorization: `Bearer ${server.token}` });
    expect(admin.status).toBe(401);
    expect(String(admin.headers["www-authenticate"])).toContain('error="invalid_token"');
    expect(JSON.parse(admin.body).error.code).toBe("unauthorized");
    await expect(httpClient(server.url, undefined)).rejects.toMatchObject({ code: 401 });
    expect(await sessionCount(server)).toBe(before);
  });

  it("answers 403 to a foreign Host or Origin, token or not", async () => {
    await using server = await startTestServer();
    const token = `Bearer ${server.app.credentials.mcpToken}`;
    const port = new URL(server.url).port;
    expect((await raw(server.url, { authorization: token, host: `evil.example:${port}` })).status).toBe(403);
    expect((await raw(server.url, { authorization: token, origin: "http://evil.example" })).status).toBe(403);
    expect(
      (await raw(server.url, { authorization: token, origin: `http://127.0.0.1:${Number(port) + 1}` })).status,
    ).toBe(403);
    expect((await raw(server.url, { authorization: token, "sec-fetch-site": "cross-site" })).status).toBe(403);
    // Our own origin is fine.
    expect((await raw(server.url, { authorization: token, origin: server.url })).status).toBe(200);
  });
});

describe("/mcp sessions", () => {
  it("lists exactly the two tools and binds each session to the user whose token opened it", async () => {
    await using server = await startTestServer({ mcpMode: "auto" });
    await addMcpUser(server, "user_b", "token-of-user-b-0123456789");
    await using a = await httpClient(server.url, server.app.credentials.mcpToken);
    await using b = await httpClient(server.url, "token-of-user-b-0123456789");
    const { tools } = await a.client.listTools(undefined, TIMEOUT);
    expect(tools.map((t) => t.name).sort()).toEqual(["execute_code", "view_image"]);

    expect((await a.run(CREATE("Mine"))).observation).toMatchObject({ ok: true, result: "Mine" });
    const list = `import { workflows } from "${WORKFLOWS}"; export default (await workflows.list()).workflows.map((w) => w.name);`;
    expect((await b.run(list)).observation.result).toEqual([]);
    expect((await a.run(list)).observation.result).toEqual(["Mine"]);

    // User b's token naming user a's session is told it does not exist.
    const stolen = await raw(
      server.url,
      { authorization: "Bearer token-of-user-b-0123456789", "mcp-session-id": a.transport.sessionId ?? "" },
      JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    );
    expect(stolen.status).toBe(404);
  });

  it("gives a user made with `user add` an MCP token of their own, shown once and stored hashed", async () => {
    await using server = await startTestServer({ mcpMode: "auto" });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "server-bridge/main.ts", "user", "add", "bob"],
      { env: { ...process.env, ...(await storeEnv(server.dataDir)) }, encoding: "utf8" },
    );
    const bob = JSON.parse(stdout) as { userId: string; token: string; mcpToken: string };
    expect(bob.mcpToken).toEqual(expect.any(String));
    expect(bob.mcpToken).not.toBe(bob.token);
    const stored = await server.app.store
      .sql("SELECT token_hash, scope FROM api_tokens WHERE user_id = ?")
      .all(bob.userId);
    expect(stored).toEqual(
      expect.arrayContaining([
        { token_hash: hashToken(bob.mcpToken), scope: "mcp" },
        { token_hash: hashToken(bob.token), scope: "admin" },
      ]),
    );
    await using mcp = await httpClient(server.url, bob.mcpToken);
    expect((await mcp.run(CREATE("Bob's"))).observation).toMatchObject({ ok: true, result: "Bob's" });
    expect(await server.app.store.sql("SELECT user_id FROM workflows").all()).toEqual([{ user_id: bob.userId }]);
    // Each token keeps to its scope: the admin token does not open /mcp.
    expect((await raw(server.url, { authorization: `Bearer ${bob.token}` })).status).toBe(401);
  });

  it("keeps two clients with colliding request ids apart", async () => {
    await using server = await startTestServer();
    await using a = await httpClient(server.url, server.app.credentials.mcpToken);
    await using b = await httpClient(server.url, server.app.credentials.mcpToken);
    // Both SDK clients number their requests from 0: every call below shares its id with the other's.
    const results = await Promise.all(
      [0, 1, 2].flatMap((i) => [
        a.run(`export default "a${i}";`).then((r) => r.observation.result),
        b.run(`export default "b${i}";`).then((r) => r.observation.result),
      ]),
    );
    expect(results).toEqual(["a0", "b0", "a1", "b1", "a2", "b2"]);
  });

  it("forgets a session once the client ends it", async () => {
    await using server = await startTestServer();
    const client = await httpClient(server.url, server.app.credentials.mcpToken);
    const id = client.transport.sessionId ?? "";
    await client[Symbol.asyncDispose]();
    const after = await raw(
      server.url,
      { authorization: `Bearer ${server.app.credentials.mcpToken}`, "mcp-session-id": id },
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    );
    expect(after.status).toBe(404);
  });
});

describe("/mcp gate through elicitation", () => {
  it("default mode: an accepted elicitation allows once, a declined one denies", async () => {
    await using server = await startTestServer();
    let answer: "accept" | "decline" = "accept";
    await using mcp = await httpClient(server.url, server.app.credentials.mcpToken, {
      elicit: async () => (answer === "accept" ? { action: "accept", content: {} } : { action: "decline" }),
    });
    const allowed = await mcp.run(
      `import { workflows } from "${WORKFLOWS}";
       const made = await workflows.create("Approved");
       export default { made: made.name, count: (await workflows.list()).count };`,
    );
    expect(allowed.observation).toMatchObject({ ok: true, result: { made: "Approved", count: 1 } });
    expect(mcp.elicitations).toHaveLength(1);
    expect(mcp.elicitations[0]?.message).toContain("create_workflow");

    answer = "decline";
    const denied = await mcp.run(CREATE("Refused"));
    expect(denied.result.isError).toBe(true);
    expect(denied.observation.error?.code).toBe("permission_denied");
    expect(mcp.elicitations).toHaveLength(2);
    const names = await server.app.store.sql("SELECT name FROM workflows").all();
    expect(names).toEqual([{ name: "Approved" }]);
  });

  it("default mode: 'for this session' stops asking for that capability", async () => {
    await using server = await startTestServer();
    await using mcp = await httpClient(server.url, server.app.credentials.mcpToken, {
      elicit: async () => ({ action: "accept", content: { for_session: true } }),
    });
    expect((await mcp.run(CREATE("One"))).observation.ok).toBe(true);
    expect((await mcp.run(CREATE("Two"))).observation.ok).toBe(true);
    expect(mcp.elicitations).toHaveLength(1);
  });

  it("default mode: an answer that cannot be read is capability_unavailable, never a denial", async () => {
    await using server = await startTestServer();
    const contents: Record<string, unknown>[] = [{ for_session: "yes" }, { for_session: true, extra: 1 }];
    await using mcp = await httpClient(server.url, server.app.credentials.mcpToken, {
      elicit: async () => ({ action: "accept", content: contents.shift() as Record<string, string> }),
    });
    for (const name of ["Odd", "Extra"]) {
      const { observation } = await mcp.run(CREATE(name));
      expect(observation.error?.code).toBe("capability_unavailable");
      expect(observation.error?.message).toMatch(/could not be read.*nobody said no/);
      expect(observation.error?.message).not.toMatch(/denied/i);
    }
    expect(await server.app.store.sql("SELECT count(*) AS n FROM workflows").get()).toEqual({ n: 0 });
  });

  it("default mode: a client whose prompt fails, or that declared only URL mode, is never said to have refused", async () => {
    await using server = await startTestServer();
    await using failing = await httpClient(server.url, server.app.credentials.mcpToken, {
      elicit: async () => {
        throw new Error("no window to show it in");
      },
    });
    const failed = await failing.run(CREATE("Failed"));
    expect(failed.observation.error?.code).toBe("capability_unavailable");
    expect(failed.observation.error?.message).toMatch(
      /could not show the approval for create_workflow.*nobody said no/,
    );
    expect(failing.elicitations).toHaveLength(1);

    // URL mode only: no form is ever sent to it.
    await using urlOnly = await httpClient(server.url, server.app.credentials.mcpToken, {
      elicit: async () => ({ action: "accept", content: {} }),
      capabilities: { elicitation: { url: {} } },
    });
    const unasked = await urlOnly.run(CREATE("Unasked"));
    expect(unasked.observation.error?.code).toBe("capability_unavailable");
    expect(unasked.observation.error?.message).toMatch(/declared no form elicitation\), so nobody was asked/);
    expect(urlOnly.elicitations).toHaveLength(0);
    // A client with no elicitation at all is told the same, and reads still run.
    await using none = await httpClient(server.url, server.app.credentials.mcpToken);
    expect((await none.run(CREATE("None"))).observation.error?.code).toBe("capability_unavailable");
    const read = `import { workflows } from "${WORKFLOWS}"; export default (await workflows.list()).count;`;
    expect((await none.run(read)).observation).toMatchObject({ ok: true, result: 0 });
  });

  it("default mode: a declined prompt, and a dismissed one, are the user's no (permission_denied)", async () => {
    await using server = await startTestServer();
    const answers = [{ action: "decline" as const }, { action: "cancel" as const }];
    await using mcp = await httpClient(server.url, server.app.credentials.mcpToken, {
      elicit: async () => answers.shift() ?? { action: "decline" },
    });
    const declined = await mcp.run(CREATE("No"));
    expect(declined.observation.error).toMatchObject({
      code: "permission_denied",
      message: expect.stringMatching(/denied/),
    });
    const dismissed = await mcp.run(CREATE("Dismissed"));
    expect(dismissed.observation.error).toMatchObject({
      code: "permission_denied",
      message: expect.stringMatching(/dismissed the approval/),
    });
  });

  it("answers bad tool arguments and unknown tools with codes from the error table", async () => {
    await using server = await startTestServer();
    await using mcp = await httpClient(server.url, server.app.credentials.mcpToken, {});
    const bad = await mcp.client.callTool(
      { name: "execute_code", arguments: { code: "1", risk: "extreme" } },
      undefined,
      TIMEOUT,
    );
    expect(bad.isError).toBe(true);
    const badText = (bad.content as { text: string }[])[0]?.text ?? "";
    // One issue per path, in our words: nothing of the SDK's own error text.
    expect(badText).toMatch(/^invalid_tool_arguments: execute_code: risk: .*; description: /);
    expect(badText).not.toMatch(/MCP error|Input validation/);
    const unknown = await mcp.client.callTool({ name: "nope", arguments: {} }, undefined, TIMEOUT);
    expect(unknown.isError).toBe(true);
    expect((unknown.content as { text: string }[])[0]?.text).toBe(
      'invalid_call: No tool "nope": the tools are execute_code and view_image.',
    );
  });

  it("default mode: no answer within the approval timeout settles as approval_timeout", async () => {
    await using server = await startTestServer({ approvalTimeoutMs: 300 });
    await using mcp = await httpClient(server.url, server.app.credentials.mcpToken, {
      elicit: (_request, signal) =>
        new Promise((resolve) => signal.addEventListener("abort", () => resolve({ action: "cancel" }))),
    });
    const { observation } = await mcp.run(CREATE("Late"));
    expect(observation.error?.code).toBe("approval_timeout");
  });

  it("auto mode: a high-risk action asks once before it runs; declined, nothing runs", async () => {
    await using server = await startTestServer({ mcpMode: "auto" });
    let admit = false;
    await using mcp = await httpClient(server.url, server.app.credentials.mcpToken, {
      elicit: async () => (admit ? { action: "accept", content: {} } : { action: "decline" }),
    });
    const declined = await mcp.run(CREATE("Risky"), { risk: "high" });
    expect(declined.observation.error?.code).toBe("permission_denied");
    expect(declined.observation.calls).toEqual([]);
    admit = true;
    const admitted = await mcp.run(`${CREATE("Risky")}\n`, { risk: "high" });
    expect(admitted.observation).toMatchObject({ ok: true, result: "Risky" });
    // Low risk in auto mode runs without asking; so do the writes inside an admitted action.
    expect((await mcp.run(CREATE("Calm"))).observation.ok).toBe(true);
    expect(mcp.elicitations).toHaveLength(2);
    expect(mcp.elicitations[0]?.message).toContain("high-risk");
  });
});

describe("/mcp long actions", () => {
  it("ends a runaway action with timeout while the server keeps serving others", async () => {
    await using server = await startTestServer({ actionTimeoutMs: 1000 });
    await using a = await httpClient(server.url, server.app.credentials.mcpToken);
    await using b = await httpClient(server.url, server.app.credentials.mcpToken);
    const runaway = a.run("while (true) {}");
    expect((await b.run("export default 1 + 1;")).observation.result).toBe(2);
    expect((await runaway).observation.error?.code).toBe("timeout");
    expect((await a.run("export default 'still here';")).observation.result).toBe("still here");
  });

  it("sends progress notifications when the client gave a progress token", async () => {
    await using server = await startTestServer();
    await using mcp = await httpClient(server.url, server.app.credentials.mcpToken);
    const progress: number[] = [];
    const { observation } = await mcp.run(
      `import { workflows } from "${WORKFLOWS}"; await workflows.list(); export default "done";`,
      { request: { ...TIMEOUT, onprogress: (p) => progress.push(p.progress) } },
    );
    expect(observation.result).toBe("done");
    expect(progress.length).toBeGreaterThan(0);
  });

  it("cancels the action and ends its run when the client cancels the call", async () => {
    await using server = await startTestServer({ actionTimeoutMs: 20_000 });
    await using mcp = await httpClient(server.url, server.app.credentials.mcpToken);
    const controller = new AbortController();
    const endless = `import { workflows } from "${WORKFLOWS}"; while (true) { await workflows.list(); }`;
    const call = mcp.run(endless, { request: { ...TIMEOUT, signal: controller.signal } });
    const calls = async () => {
      await server.app.audit.flush();
      return ((await server.app.store.sql("SELECT count(*) AS n FROM audit").get()) as { n: number }).n;
    };
    while ((await calls()) < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort("enough");
    await expect(call).rejects.toThrow();
    const until = Date.now() + 10_000;
    let status = "";
    while (Date.now() < until) {
      status = (
        (await server.app.store.sql("SELECT status FROM runs ORDER BY started_at DESC LIMIT 1").get()) as {
          status: string;
        }
      ).status;
      if (status !== "running") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe("cancelled");
    // The action stopped too: its loop of calls no longer reaches the store.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const settled = await calls();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await calls()).toBe(settled);
    expect((await mcp.run("export default 'next';")).observation.result).toBe("next");
  });
});
