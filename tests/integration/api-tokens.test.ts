/**
 * API tokens made with the real CLI (`token add|list|revoke`) on the store a running server uses: they
 * open the API as bearer tokens and nothing else (no browser sign-in, no person's acts, no /mcp), are
 * stored only as hashes, and stop working once revoked.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { ApiTokens } from "../../server-bridge/auth/api-tokens.ts";
import { hashToken } from "../../server-bridge/auth/tokens.ts";
import type { AppRouter } from "../../server-bridge/trpc/router.ts";
import { cliOn } from "../support/cli.ts";
import { startTestServer, WORKFLOWS } from "../support/server.ts";
import { closed, nextFrame, rawSocket, socketClient, socketUrl } from "../support/sockets.ts";

const cli = (dataDir: string, ...args: string[]) => cliOn(dataDir, args);

/** The status `session.create` gets with `token` as a bearer token. */
const createStatus = async (url: string, token: string) =>
  (
    await fetch(`${url}/trpc/session.create`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    })
  ).status;

const client = (url: string, token: string) =>
  createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${url}/trpc`, headers: { authorization: `Bearer ${token}` } })],
  });

describe("API tokens", () => {
  it("are made, listed and revoked with the CLI; they open the API but never sign a browser in", async () => {
    await using server = await startTestServer();
    const added = await cli(server.dataDir, "token", "add", "--name", "ci");
    expect(added.status).toBe(0);
    const { name, token } = JSON.parse(added.stdout) as { name: string; token: string };
    expect(name).toBe("ci");
    expect(token).toMatch(/^ntapi_/);
    expect(added.stderr).toMatch(/Shown once/);

    // The API: sessions, runs and capability calls.
    const api = client(server.url, token);
    const { sessionId } = await api.session.create.mutate({ mode: "default" });
    const { runId } = await api.run.start.mutate({ sessionId });
    const listed = await api.run.invoke.mutate({ runId, module: WORKFLOWS, export: "list", args: [] });
    expect(listed).toMatchObject({ ok: true });
    const asset = await fetch(`${server.url}/assets/ast_${"0".repeat(32)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(asset.status).toBe(404); // authenticated: the id is simply not there

    // Not a person: no browser sign-in, no approvals or mode changes, no /mcp.
    const login = await fetch(`${server.url}/?token=${encodeURIComponent(token)}`, { redirect: "manual" });
    expect(login.status).toBe(401);
    expect(login.headers.get("set-cookie")).toBeNull();
    expect((await login.json()).error.message).toMatch(/cannot sign a browser in/);
    await expect(api.session.setMode.mutate({ sessionId, mode: "auto" })).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
    await expect(api.approvals.respond.mutate({ approvalId: "apr_x", answer: "allow" })).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
    const mcp = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(mcp.status).toBe(401);

    // Stored hashed: the secret is nowhere in the store.
    if (server.app.store.dialect === "sqlite") {
      expect(readFileSync(join(server.dataDir, "nodetool.sqlite")).includes(Buffer.from(token))).toBe(false);
    } else {
      const rows = JSON.stringify(await server.app.store.sql("SELECT * FROM api_tokens").all());
      expect(rows).toContain(hashToken(token));
      expect(rows).not.toContain(token);
    }

    // A taken name is refused; list shows names, never tokens.
    expect((await cli(server.dataDir, "token", "add", "--name", "ci")).status).toBe(1);
    const list = await cli(server.dataDir, "token", "list");
    expect(list.status).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({ tokens: [{ name: "ci", created_at: expect.any(String) }] });
    expect(list.stdout).not.toContain(token);

    const revoked = await cli(server.dataDir, "token", "revoke", "ci");
    expect(revoked.status).toBe(0);
    expect(await createStatus(server.url, token)).toBe(401);
    expect((await cli(server.dataDir, "token", "revoke", "ci")).status).toBe(1);
    expect((await cli(server.dataDir, "token", "frobnicate")).status).toBe(2);
  });

  it("open the API's WebSocket too (connectionParams), still as a script: no person's acts, no auto mode", async () => {
    await using server = await startTestServer({ allowTokenAutoMode: false });
    const { token } = await new ApiTokens(server.app.store).add("local", "socket-script");
    await using socket = socketClient(server, { token });
    const { sessionId } = await socket.api.session.create.mutate({ mode: "default" });
    const { runId } = await socket.api.run.start.mutate({ sessionId });
    expect(await socket.api.run.invoke.mutate({ runId, module: WORKFLOWS, export: "list", args: [] })).toMatchObject({
      ok: true,
    });
    await expect(socket.api.session.setMode.mutate({ sessionId, mode: "auto" })).rejects.toMatchObject({
      data: { code: "FORBIDDEN" },
    });
    await expect(socket.api.session.create.mutate({ mode: "auto" })).rejects.toMatchObject({
      data: { error: { code: "unauthorized" } },
    });
    // The MCP token is not one of the API's: refused with a coded error, and the socket is closed.
    const wrong = await rawSocket(socketUrl(server, "?connectionParams=1"));
    if ("refused" in wrong) throw new Error(`upgrade refused: ${wrong.refused}`);
    const refusal = nextFrame<{ id: unknown; error?: { data?: { error?: { code: string } } } }>(
      wrong,
      (frame) => frame.id === null,
    );
    wrong.send(JSON.stringify({ method: "connectionParams", data: { token: server.app.credentials.mcpToken } }));
    expect((await refusal).error?.data?.error?.code).toBe("unauthorized");
    await closed(wrong);
  });

  it("refuses an MCP token on the API and an admin token on /mcp", async () => {
    await using server = await startTestServer();
    expect(await createStatus(server.url, server.app.credentials.mcpToken)).toBe(401);
    const mcp = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(mcp.status).toBe(401);
  });

  it("answers a script's malformed call with what to fix, not a dump of the schema's issues", async () => {
    await using server = await startTestServer();
    const call = async (method: "GET" | "POST", path: string, body?: string) => {
      const res = await fetch(`${server.url}/trpc/${path}`, {
        method,
        headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body }),
      });
      const json = (await res.json()) as {
        error: { data: { error: { code: string; message: string; issues?: string[] } } };
      };
      return { status: res.status, ...json.error.data.error };
    };
    const badMode = await call("POST", "session.create", '{"mode":"bogus"}');
    expect(badMode).toMatchObject({ status: 400, code: "invalid_call" });
    expect(badMode.message).toBe(
      'The input to session.create does not fit: mode: Invalid option: expected one of "plan"|"default"|"auto".',
    );
    expect(badMode.issues).toEqual(['mode: Invalid option: expected one of "plan"|"default"|"auto"']);

    const missing = await call("POST", "run.invoke", '{"runId":"run_x"}');
    expect(missing.issues?.map((line) => line.split(":")[0])).toEqual(["module", "export", "args"]);
    expect(missing.message).not.toMatch(/[[{]\n/);

    expect(await call("POST", "session.create", "not json")).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^The input is not JSON: /),
    });
    // A query sent the way a mutation is, and the other way round: the refusal says how to call it.
    expect(await call("POST", "session.get", '{"sessionId":"x"}')).toMatchObject({
      status: 405,
      message: "session.get is a query: call it with GET /trpc/session.get?input=<URL-encoded JSON>.",
    });
    expect((await call("GET", "session.create")).message).toBe(
      "session.create is a mutation: call it with POST /trpc/session.create, its input as the JSON body.",
    );
    // A query without ?input= is told where its input goes.
    expect((await call("GET", "session.get")).message).toMatch(/\?input=<URL-encoded JSON>\.$/);
    expect(await call("POST", "nope.x", "{}")).toMatchObject({ status: 404, code: "invalid_call" });
    // invokeMany streams: a plain POST is told how to call it instead.
    expect(
      await call(
        "POST",
        "run.invokeMany",
        '{"runId":"run_x","calls":[{"callId":"c1","module":"m","export":"e","args":[]}]}',
      ),
    ).toMatchObject({
      status: 415,
      message: expect.stringMatching(/httpBatchStreamLink, or send each call to run\.invoke instead\.$/),
    });
  });
});
