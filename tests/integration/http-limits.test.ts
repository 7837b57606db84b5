/**
 * The HTTP layer under clients that misbehave: malformed addresses, slow or never-finished requests
 * without credentials, and many sockets from one address. Raw `net` sockets, so nothing in a client
 * library smooths the request over; every trickle is bounded in count (a fixed number of bytes), and
 * what is checked is whether the server closed the socket before the client ran out of bytes to send.
 */
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { watchEvents } from "../support/events.ts";
import { startTestServer, type TestServer, WORKFLOWS } from "../support/server.ts";
import { socketClient } from "../support/sockets.ts";

interface Trickle {
  socket: Socket;
  /** Settles when the server closed the socket ("closed", with what it sent) or the client ran out of bytes. */
  outcome: Promise<{ closedByServer: boolean; received: string; sent: number }>;
}

/**
 * Opens a raw socket, writes `head` (request line and headers, possibly unfinished), then one byte of
 * `filler` every `everyMs` until `bytes` bytes went out or the server closed the connection.
 */
function trickle(
  server: TestServer,
  head: string,
  options: { bytes?: number; everyMs?: number; localAddress?: string; filler?: string } = {},
): Trickle {
  const { port } = new URL(server.url);
  const socket = connect({ host: "127.0.0.1", port: Number(port), localAddress: options.localAddress });
  const budget = options.bytes ?? 100;
  let sent = 0;
  let received = "";
  const outcome = new Promise<{ closedByServer: boolean; received: string; sent: number }>((resolve) => {
    let timer: ReturnType<typeof setInterval> | undefined;
    const finish = (closedByServer: boolean) => {
      clearInterval(timer);
      resolve({ closedByServer, received, sent });
    };
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", () => undefined);
    socket.on("close", () => finish(true));
    socket.on("connect", () => {
      socket.write(head);
      timer = setInterval(() => {
        if (socket.destroyed) return;
        if (sent >= budget) {
          finish(false);
          socket.destroy();
          return;
        }
        sent++;
        socket.write(options.filler ?? "a");
      }, options.everyMs ?? 20);
    });
  });
  return { socket, outcome };
}

const post = (path: string, headers: Record<string, string>, declared = 1_000_000) =>
  `POST ${path} HTTP/1.1\r\n${Object.entries({ "content-length": String(declared), ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`;

describe("HTTP limits", () => {
  it("answers 400 (invalid_call), not 500, to a malformed percent-escape in a page or asset path", async () => {
    await using server = await startTestServer();
    for (const path of ["/%zz", "/assets/%E0%A4%A", "/editor/%", "/%C0"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "invalid_call" } });
    }
    // A well-formed escape is still served (the page shell for an unknown path).
    expect((await fetch(`${server.url}/some%20page`)).status).toBe(200);
  });

  it("closes the connection on every early refusal instead of reading the declared body (401, 403, 413, 415)", async () => {
    // Long deadlines: only the refusal itself may end these sockets.
    await using server = await startTestServer({ maxBodyBytes: 10_000 });
    const host = new URL(server.url).host;
    const json = { host, "content-type": "application/json" };
    const auth = { authorization: `Bearer ${server.token}` };
    const cases: [string, string][] = [
      ["401", post("/trpc/session.create", json)],
      ["401", post("/trpc/session.create", { ...json, authorization: "Bearer wrong" })],
      ["401", post("/mcp", json)],
      ["403", post("/trpc/session.create", { ...json, host: "evil.example" })],
      ["403", post("/mcp", { ...json, ...auth, origin: "http://evil.example" })],
      ["413", post("/trpc/session.create", { ...json, ...auth })],
      ["415", post("/trpc/session.create", { ...json, ...auth, "content-type": "text/plain" }, 5_000)],
    ];
    const outcomes = await Promise.all(cases.map(([, head]) => trickle(server, head, { bytes: 150 }).outcome));
    outcomes.forEach((outcome, i) => {
      const [status] = cases[i] as [string, string];
      expect(outcome.received.slice(0, 12), `case ${i}`).toBe(`HTTP/1.1 ${status}`);
      expect(outcome.received.toLowerCase(), `case ${i}`).toContain("connection: close");
      expect(outcome.closedByServer, `case ${i}: the server kept reading the body`).toBe(true);
    });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it("ends requests whose headers or body trickle in past their deadlines (408), with or without credentials", async () => {
    await using server = await startTestServer({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const host = new URL(server.url).host;
    const slowHeaders = trickle(server, `GET /health HTTP/1.1\r\nhost: ${host}\r\nx-slow: `, { bytes: 400 });
    const slowBody = trickle(
      server,
      post("/trpc/session.create", {
        host,
        "content-type": "application/json",
        authorization: `Bearer ${server.token}`,
      }),
      { bytes: 400, filler: " " },
    );
    for (const { outcome } of [slowHeaders, slowBody]) {
      const { closedByServer, received } = await outcome;
      expect(closedByServer).toBe(true);
      expect(received.slice(0, 12)).toBe("HTTP/1.1 408");
    }
    expect(await server.app.store.sql("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 0 });

    // A body still arriving after its answer (the handler did not read it) keeps its deadline; an
    // expectation the server does not understand is refused and closed, not left open to trickle.
    const afterAnswer = trickle(server, post("/health", { host }, 1_000).replace("POST", "GET"), { bytes: 400 });
    const expecting = trickle(server, post("/trpc/session.create", { host, expect: "something-else" }), { bytes: 400 });
    for (const [{ outcome }, status] of [
      [afterAnswer, "200"],
      [expecting, "417"],
    ] as const) {
      const { closedByServer, received } = await outcome;
      expect([received.slice(0, 12), closedByServer]).toEqual([`HTTP/1.1 ${status}`, true]);
    }
  });

  it("takes a request deadline longer than a timer can wait as no deadline to speak of, not as none at all", async () => {
    // Past 2^31 - 1 ms a timer fires at once: every request with a body would be cut on arrival.
    await using server = await startTestServer({ requestTimeoutMs: 2_500_000_000 });
    const host = new URL(server.url).host;
    const head = post(
      "/trpc/session.create",
      { host, "content-type": "application/json", authorization: `Bearer ${server.token}` },
      2,
    );
    // The body a moment after the headers, as a body larger than one packet arrives.
    // (The client never half-closes: a server reading an end from it drops the request unanswered.)
    const socket = connect({ host: "127.0.0.1", port: Number(new URL(server.url).port) });
    const answered = new Promise<string>((resolve) => {
      socket.once("data", (chunk: Buffer) => resolve(chunk.toString("latin1")));
      socket.once("close", () => resolve(""));
    });
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(head);
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write("{}");
    expect((await answered).slice(0, 12)).toBe("HTTP/1.1 200");
    socket.destroy();
  });

  it("caps the sockets one client address holds, and /health still answers while hundreds trickle", async () => {
    await using server = await startTestServer({ maxConnectionsPerClient: 100 });
    const host = new URL(server.url).host;
    // 300 sockets from another loopback address, each trickling an unfinished request.
    const flood = Array.from({ length: 300 }, () =>
      trickle(server, `GET /health HTTP/1.1\r\nhost: ${host}\r\nx-slow: `, {
        bytes: 1_000,
        everyMs: 50,
        localAddress: "127.0.0.2",
      }),
    );
    await Promise.all(
      flood.map(({ socket }) => new Promise<void>((resolve) => socket.once("connect", resolve).once("close", resolve))),
    );
    // The sockets past the cap were closed on arrival, before anything on them was read.
    const settled = await Promise.all(flood.slice(100).map(({ outcome }) => outcome));
    expect(settled.every((o) => o.closedByServer && o.received === "")).toBe(true);
    // While the first 100 still trickle, every other client is served.
    for (let i = 0; i < 5; i++) {
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
    }
    expect(flood.slice(0, 100).every(({ socket }) => !socket.destroyed)).toBe(true);
    for (const { socket } of flood) socket.destroy();
  });

  it("keeps event streams and held calls open past the request deadline: they are long answers, not slow requests", async () => {
    await using server = await startTestServer({ headersTimeoutMs: 200, requestTimeoutMs: 400, holdMs: 1_500 });
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({ mode: "default" });
    using events = await watchEvents(browser, sessionId);
    // Well past the request deadline (and several of Node's checks), the stream still carries events.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const held = server.script.run.invoke.mutate({
      runId,
      module: WORKFLOWS,
      export: "create",
      args: ["held"],
      callId: "c1",
    });
    const asked = await events.next("approval_requested");
    expect(asked.approval.capability).toBe("create_workflow");
    // The held call answers after its hold (past the request deadline), not with a 408.
    expect(await held).toEqual({ pending: true });

    // An upgraded socket has left the HTTP parser: the deadline never closes it.
    await using socket = socketClient(server, { cookie: await server.login() });
    expect(await socket.api.config.get.query()).toMatchObject({ actionTimeoutMs: expect.any(Number) });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(await socket.api.session.get.query({ sessionId })).toMatchObject({ mode: "default" });
    expect(server.sockets.count()).toBe(1);
  });
});
