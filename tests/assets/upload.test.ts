/**
 * `POST /assets`: the person's page uploads a file as it is, past the message cap up to the asset cap,
 * as the person's own `assets.save` (checked, re-encoded and audited alike). Only the signed-in person's
 * page from its own origin; too large, unnamed, someone else's run and too many at once are refused
 * with their codes, and nothing is saved.
 */
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { UPLOAD_FLOOR_BYTES_PER_SECOND, uploadsArriving } from "../../server-bridge/assets/upload.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { png } from "./support.ts";

interface Answer {
  ok?: boolean;
  value?: { id: string; name: string; content_type: string; kind: string; size: number; width?: number };
  error?: { code: string; message: string };
}

async function editorRun(server: TestServer) {
  const browser = await server.browser();
  const { sessionId } = await browser.session.create.mutate({});
  const { runId } = await browser.run.start.mutate({ sessionId, editor: true });
  return runId;
}

function post(
  server: TestServer,
  query: Record<string, string>,
  body: Uint8Array | string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Answer }> {
  // A Blob with no type, as a browser sends a file: no Content-Type unless one is given.
  return fetch(`${server.url}/assets?${new URLSearchParams(query)}`, {
    method: "POST",
    body: new Blob([typeof body === "string" ? body : Buffer.from(body)]),
    headers,
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Answer }));
}

/** An upload from `cookie`'s page of `size` bytes: `pieces` sixteenths of it, `everyMs` apart, then nothing more. */
function trickled(
  server: TestServer,
  query: Record<string, string>,
  cookie: string,
  { size, pieces, everyMs }: { size: number; pieces: number; everyMs: number },
): Promise<{ status: number; headers: Record<string, unknown>; body: Answer }> {
  const { port } = new URL(server.url);
  const req = request({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: `/assets?${new URLSearchParams(query)}`,
    headers: { cookie, origin: server.url, "content-length": String(size) },
  });
  const piece = Buffer.alloc(size / 16, "x");
  return new Promise((resolve, reject) => {
    req.on("error", reject);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString()) as Answer;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        } catch (err) {
          reject(err);
        }
      });
    });
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= pieces || req.destroyed) {
        clearInterval(timer);
        return;
      }
      sent++;
      req.write(piece);
    }, everyMs);
  });
}

const count = async (server: TestServer) =>
  ((await server.app.store.sql("SELECT count(*) AS n FROM assets").get()) as { n: number }).n;

describe("POST /assets: the person's upload", () => {
  it("saves a file larger than a message may be, as the person's own act, typed by the browser or by its name", async () => {
    await using server = await startTestServer({ maxBodyBytes: 1024 * 1024 });
    const run = await editorRun(server);
    const page = { cookie: await server.login(), origin: server.url, "sec-fetch-site": "same-origin" };

    // Three times the message cap: a call could not carry it.
    const big = randomBytes(3 * 1024 * 1024);
    const saved = await post(server, { run, name: "recording.bin" }, big, {
      ...page,
      "content-type": "application/octet-stream",
    });
    expect(saved).toMatchObject({
      status: 200,
      body: { ok: true, value: { name: "recording.bin", size: big.length } },
    });
    const served = await fetch(`${server.url}${`/assets/${saved.body.value?.id}`}`, { headers: page });
    expect(Buffer.from(await served.arrayBuffer()).equals(big)).toBe(true);

    // An image is checked and re-encoded as any saved image is; a file the browser has no type for
    // is typed by its name.
    const image = await post(server, { run, name: "pic.png" }, await png(30, 20), {
      ...page,
      "content-type": "image/png",
    });
    expect(image.body.value).toMatchObject({ kind: "image", content_type: "image/png", width: 30 });
    const notes = await post(server, { run, name: "notes.md" }, "# Notes", page);
    expect(notes.body.value).toMatchObject({ kind: "text", content_type: "text/markdown; charset=utf-8" });
    const fake = await post(server, { run, name: "fake.png" }, "not a picture", {
      ...page,
      "content-type": "image/png",
    });
    expect([fake.status, fake.body.error?.code]).toEqual([500, "capability_failed"]);

    await server.app.audit.flush();
    const audited = await server.app.store
      .sql("SELECT actor, decision, outcome FROM audit WHERE capability = 'save_asset' ORDER BY id")
      .all();
    expect(audited).toEqual([
      { actor: "user", decision: "run", outcome: "ok" },
      { actor: "user", decision: "run", outcome: "ok" },
      { actor: "user", decision: "run", outcome: "ok" },
      { actor: "user", decision: "run", outcome: "capability_failed" },
    ]);
  });

  it("is the signed-in person's page only, within the asset cap, on their own run", async () => {
    await using server = await startTestServer({ assetMaxBytes: 1000 });
    const run = await editorRun(server);
    const cookie = await server.login();
    const page = { cookie, origin: server.url, "sec-fetch-site": "same-origin" };
    const file = { run, name: "a.txt" };

    const refusals = [
      // No login; a token (scripts save with assets.save); another site's page with the cookie; a
      // request with the cookie and no sign of where it comes from.
      await post(server, file, "x", {}),
      await post(server, file, "x", { authorization: `Bearer ${server.token}` }),
      await post(server, file, "x", { cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" }),
      await post(server, file, "x", { cookie }),
      // Past the asset cap; no name; a run that is not this user's.
      await post(server, file, "y".repeat(1001), page),
      await post(server, { run }, "x", page),
      await post(server, { run: "run_not-mine", name: "a.txt" }, "x", page),
    ];
    expect(refusals.map((r) => [r.status, r.body.error?.code])).toEqual([
      [401, "unauthorized"],
      [401, "unauthorized"],
      [403, "unauthorized"],
      [403, "unauthorized"],
      [413, "invalid_call"],
      [400, "invalid_call"],
      [409, "run_ended"],
    ]);
    expect(refusals[4]?.body.error?.message).toContain("larger than 1000 bytes, the most one asset may be");
    expect(await count(server)).toBe(0);
    expect((await post(server, file, "fits", page)).status).toBe(200);
  });

  it("takes a few uploads of one person at once and refuses more until one ends", async () => {
    await using server = await startTestServer();
    const run = await editorRun(server);
    const cookie = await server.login();
    const { port } = new URL(server.url);
    // Four uploads that have sent their head and part of their body, and wait.
    const ended: string[] = [];
    const open = Array.from({ length: 4 }, (_, i) => {
      const req = request({
        host: "127.0.0.1",
        port,
        method: "POST",
        path: `/assets?run=${run}&name=slow-${i}.txt`,
        headers: { cookie, origin: server.url, "content-type": "text/plain", "content-length": "10" },
      });
      req.on("error", (err) => ended.push(`slow-${i}: ${err.message}`));
      const answered = new Promise<number>((resolve) =>
        req.on("response", (res) => {
          ended.push(`slow-${i}: answered ${res.statusCode}`);
          resolve(res.statusCode ?? 0);
        }),
      );
      req.write("12345");
      return { req, answered };
    });
    // The server is reading all four: each counts once it knows whose it is (none may end before).
    while (uploadsArriving(server.app) < 4) {
      expect(ended).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const fifth = await post(server, { run, name: "fifth.txt" }, "x", { cookie, origin: server.url });
    expect([fifth.status, fifth.body.error?.code]).toEqual([429, "invalid_call"]);
    for (const { req } of open) req.end("67890");
    expect(await Promise.all(open.map((o) => o.answered))).toEqual([200, 200, 200, 200]);
    expect((await post(server, { run, name: "after.txt" }, "x", { cookie, origin: server.url })).status).toBe(200);
  });

  it("waits for a file on a slow link as long as its size needs at the floor rate, and ends one that stops arriving (408)", async () => {
    await using server = await startTestServer({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const run = await editorRun(server);
    const cookie = await server.login();
    // Twice the floor rate's second: the request deadline and 2 s more. It arrives in 16 pieces over
    // about 1.2 s, three times as long as any other request may take to arrive.
    const size = 2 * UPLOAD_FLOOR_BYTES_PER_SECOND;
    const slow = await trickled(server, { run, name: "slow.bin" }, cookie, { size, pieces: 16, everyMs: 75 });
    expect(slow).toMatchObject({ status: 200, body: { ok: true, value: { name: "slow.bin", size } } });

    // Half a file, then nothing: ended once its time is up, with a code, and nothing is kept.
    const stalled = await trickled(server, { run, name: "stalled.bin" }, cookie, { size, pieces: 8, everyMs: 10 });
    expect([stalled.status, stalled.body.error?.code, stalled.headers.connection]).toEqual([408, "timeout", "close"]);
    expect(stalled.body.error?.message).toMatch(/did not arrive within 2\.\d s/);
    expect(await count(server)).toBe(1);
    // The server let go of it (it counts no upload arriving once the socket closed).
    while (uploadsArriving(server.app) > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  });
});
