/**
 * The page's WebSocket under hostile clients: the upgrade passes the HTTP guards (Host, an Origin that
 * is exactly the app's own, the cookie session), scripts authenticate in time or are closed, sockets are
 * capped, a socket's user touches only their own runs, and per-connection bounds (message size, calls
 * in flight, a slow reader, a dead peer) close or refuse without hurting anyone else.
 */
import { describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { startTestServer, type TestServer, WORKFLOWS } from "../support/server.ts";
import { closed, nextFrame, rawSocket, socketClient, socketUrl } from "../support/sockets.ts";

type Frame = {
  id: number | null;
  result?: { type: string; data?: unknown };
  error?: { data?: { error?: { code: string } } };
};

async function open(server: TestServer, headers: Record<string, string>, query = ""): Promise<WebSocket> {
  const socket = await rawSocket(socketUrl(server, query), headers);
  if ("refused" in socket) throw new Error(`upgrade refused: ${socket.refused}`);
  return socket;
}

async function pageSocket(server: TestServer): Promise<WebSocket> {
  return open(server, { cookie: await server.login(), origin: server.url });
}

function mutation(id: number, path: string, input: unknown): string {
  return JSON.stringify({ id, method: "mutation", params: { path, input } });
}

async function health(server: TestServer): Promise<number> {
  return (await fetch(`${server.url}/health`)).status;
}

describe("the page's WebSocket", () => {
  it("refuses a forged Origin, a rebinding Host and a missing cookie at the upgrade", async () => {
    await using server = await startTestServer();
    const cookie = await server.login();
    expect(await rawSocket(socketUrl(server), { cookie, origin: "http://evil.example" })).toEqual({ refused: 403 });
    expect(await rawSocket(socketUrl(server), { cookie, origin: server.url, host: "evil.example:80" })).toEqual({
      refused: 403,
    });
    expect(await rawSocket(socketUrl(server), { origin: server.url })).toEqual({ refused: 401 });
    // A cookie without an Origin is not the person's: no browser sends one, so it is refused as a script.
    expect(await rawSocket(socketUrl(server), { cookie })).toEqual({ refused: 401 });
    expect(await rawSocket(`${server.url.replace("http", "ws")}/other`, { cookie, origin: server.url })).toEqual({
      refused: 404,
    });
    expect(await health(server)).toBe(200);
  });

  it("refuses every upgrade when WebSockets are turned off", async () => {
    await using server = await startTestServer({ webSockets: false });
    expect(await rawSocket(socketUrl(server), { cookie: await server.login(), origin: server.url })).toEqual({
      refused: 404,
    });
  });

  it("closes a script's socket that does not authenticate in time, and one with a wrong token", async () => {
    await using server = await startTestServer();
    const silent = await open(server, {}, "?connectionParams=1");
    expect(await closed(silent)).toBe(4401);

    const wrong = await open(server, {}, "?connectionParams=1");
    const refused = nextFrame<Frame>(wrong, (f) => f.id === null);
    wrong.send(JSON.stringify({ method: "connectionParams", data: { token: "not-the-token" } }));
    const refusal = await refused;
    expect(refusal.error?.data?.error?.code).toBe("unauthorized");
    await closed(wrong);
    await expect.poll(() => server.sockets.count()).toBe(0);
  });

  it("serves a script with the admin token in connectionParams, but never the person's acts", async () => {
    await using server = await startTestServer();
    await using script = socketClient(server, { token: server.token });
    const { sessionId } = await script.api.session.create.mutate({ mode: "default" });
    const { runId } = await script.api.run.start.mutate({ sessionId });
    const listed = await script.api.run.invoke.mutate({ runId, module: WORKFLOWS, export: "list", args: [{}] });
    expect(listed).toMatchObject({ ok: true, value: { workflows: [] } });
    await expect(script.api.session.setMode.mutate({ sessionId, mode: "auto" })).rejects.toThrow(/signed-in person/);
  });

  it("lets a socket's user touch only their own runs and sessions", async () => {
    await using server = await startTestServer();
    const other = await server.app.credentials.addUser("other");
    const theirs = await server.app.sessions.create(other.userId, { mode: "auto" });
    const theirRun = await server.app.runs.start(other.userId, theirs.sessionId);
    await using page = socketClient(server, { cookie: await server.login() });
    const answer = await page.api.run.invoke.mutate({
      runId: theirRun.id,
      module: WORKFLOWS,
      export: "create",
      args: ["mine now"],
    });
    expect(answer).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    await expect(page.api.session.get.query({ sessionId: theirs.sessionId })).rejects.toThrow();
    await expect(page.api.run.end.mutate({ runId: theirRun.id })).rejects.toThrow(/not yours/);
    expect(await server.app.store.sql("SELECT count(*) AS n FROM workflows").get()).toEqual({ n: 0 });
  });

  it("closes a socket that sends a message over the size cap, and stays healthy", async () => {
    await using server = await startTestServer({ maxBodyBytes: 64 * 1024 });
    const socket = await pageSocket(server);
    socket.send(
      mutation(1, "run.invoke", { runId: "run_x", module: WORKFLOWS, export: "list", args: ["x".repeat(70_000)] }),
    );
    expect(await closed(socket)).toBe(1009);
    expect(await health(server)).toBe(200);
  });

  it("refuses calls past the in-flight cap with a coded error, and the connection stays usable", async () => {
    await using server = await startTestServer({ maxBatchSize: 100, maxCallsPerRun: 1000 });
    const { sessionId } = await server.script.session.create.mutate({ mode: "default" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const socket = await pageSocket(server);
    const answers = new Map<number, Frame>();
    socket.on("message", (data) => {
      const text = data.toString();
      if (text === "PING" || text === "PONG") return;
      const frame = JSON.parse(text) as Frame;
      if (typeof frame.id === "number") answers.set(frame.id, frame);
    });
    // 100 writes wait for a person in default mode: they fill the connection's calls in flight.
    const flood = Array.from({ length: 101 }, (_, i) =>
      JSON.parse(
        mutation(i + 1, "run.invoke", { runId, module: WORKFLOWS, export: "create", args: [`w${i}`], callId: `c${i}` }),
      ),
    );
    socket.send(JSON.stringify(flood.slice(0, 100)));
    await expect.poll(async () => (await server.app.approvals.pending(sessionId)).length).toBe(100);
    socket.send(JSON.stringify(flood[100]));
    await expect.poll(() => answers.get(101)?.error?.data?.error?.code).toBe("invalid_call");
    // Ending the run settles the hundred; the same socket then serves calls again.
    await server.script.run.cancel.mutate({ runId });
    await expect.poll(() => answers.size).toBe(101);
    const { runId: next } = await server.script.run.start.mutate({ sessionId });
    socket.send(mutation(500, "run.invoke", { runId: next, module: WORKFLOWS, export: "list", args: [{}] }));
    await expect.poll(() => answers.get(500)?.result?.type).toBe("data");
    socket.close();
  });

  it("closes the socket of a reader that stopped reading, instead of buffering without bound", async () => {
    const warned: string[] = [];
    await using server = await startTestServer({ maxBodyBytes: 64 * 1024 }, undefined, (level, message) => {
      if (level === "warn") warned.push(message);
    });
    const { sessionId } = await server.script.session.create.mutate({});
    // Another page of the same person, connected and served first.
    await using other = socketClient(server, { cookie: await server.login() });
    expect(await other.api.config.get.query()).toMatchObject({ actionTimeoutMs: expect.any(Number) });
    const slow = await pageSocket(server);
    expect(server.sockets.count()).toBe(2);
    // The reader stops reading; the catalog (near 100 KB) is asked for 800 times: about 80 MB of
    // answers, twice what loopback's kernel buffers can take in (here up to 32 MB received, 4 MB sent),
    // so the server's own buffer passes its cap with many answers still to send.
    (slow as unknown as { _socket: { pause(): void } })._socket.pause();
    const asks = Array.from({ length: 800 }, (_, i) => ({
      id: i + 1,
      method: "query",
      params: { path: "catalog.get", input: { sessionId } },
    }));
    for (let i = 0; i < asks.length; i += 50) slow.send(JSON.stringify(asks.slice(i, i + 50)));
    // The server lets it go (the paused reader itself cannot see that until it reads). This waited
    // for the server's count of sockets to reach 0 within 20 s: the other page, connecting in the
    // background then, made that pass or fail by which came first. Now it waits as long as the test may.
    while (server.sockets.count() > 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(warned).toContain("closed a socket whose reader fell behind");
    // Everyone else is served as before.
    expect(await other.api.config.get.query()).toMatchObject({ actionTimeoutMs: expect.any(Number) });
    expect(await health(server)).toBe(200);
  });

  it("closes a connection whose peer went quiet past the ping timeout", async () => {
    await using server = await startTestServer({ wsPingMs: 200 });
    const socket = await pageSocket(server);
    // A peer that never answers (no PONG, no message): the server's ping goes unanswered.
    expect(await closed(socket)).toBe(1006);
  });

  it("caps sockets per user, and signing out closes that login's sockets", async () => {
    await using server = await startTestServer();
    const cookie = await server.login();
    const sockets = await Promise.all(Array.from({ length: 16 }, () => open(server, { cookie, origin: server.url })));
    expect(await rawSocket(socketUrl(server), { cookie, origin: server.url })).toEqual({ refused: 429 });
    const signedOut = Promise.all(sockets.map(closed));
    const response = await fetch(`${server.url}/trpc/auth.signOut`, {
      method: "POST",
      headers: { cookie, origin: server.url, "sec-fetch-site": "same-origin", "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(200);
    expect(new Set(await signedOut)).toEqual(new Set([4403]));
    // The login is gone: a new socket with it is refused.
    expect(await rawSocket(socketUrl(server), { cookie, origin: server.url })).toEqual({ refused: 401 });
  });

  it("resumes the event stream after the last id it saw: a run_ended published meanwhile is replayed", async () => {
    await using server = await startTestServer();
    const { sessionId } = await server.script.session.create.mutate({});
    const first = await pageSocket(server);
    first.send(
      JSON.stringify({ id: 1, method: "subscription", params: { path: "session.events", input: { sessionId } } }),
    );
    await nextFrame<Frame>(first, (f) => f.result?.type === "started");
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const firstEvent = nextFrame<{ result: { id: string } } & Frame>(first, (f) => f.result?.type === "data");
    await server.script.run.end.mutate({ runId: (await server.script.run.start.mutate({ sessionId })).runId });
    const seen = await firstEvent;
    first.terminate();
    // While no socket listens, the first run ends.
    await server.script.run.end.mutate({ runId });
    const second = await pageSocket(server);
    const replay = nextFrame<{ result: { data: { data: { type: string; run_id: string } } } } & Frame>(
      second,
      (f) => f.result?.type === "data",
    );
    second.send(
      JSON.stringify({
        id: 1,
        method: "subscription",
        params: { path: "session.events", input: { sessionId }, lastEventId: seen.result.id },
      }),
    );
    const replayed = await replay;
    expect(replayed.result.data.data).toMatchObject({ type: "run_ended", run_id: runId });
    second.close();
  });
});
