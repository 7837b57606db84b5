import { statSync } from "node:fs";
import { join } from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { ApiTokens } from "../../server-bridge/auth/api-tokens.ts";
import type { AppRouter } from "../../server-bridge/trpc/router.ts";
import { startTestServer } from "../support/server.ts";

describe("auth scopes and HTTP limits", () => {
  it("serves /health without credentials and refuses /trpc without them (401, nothing touched)", async () => {
    await using server = await startTestServer();
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });

    const before = (await server.app.store.sql("SELECT count(*) AS n FROM sessions").get()) as { n: number };
    const res = await fetch(`${server.url}/trpc/session.create`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
    const wrong = await fetch(`${server.url}/trpc/session.create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer not-the-token" },
      body: "{}",
    });
    expect(wrong.status).toBe(401);
    const after = (await server.app.store.sql("SELECT count(*) AS n FROM sessions").get()) as { n: number };
    expect(after.n).toBe(before.n);
  });

  it("generates token files with mode 0600", async () => {
    await using server = await startTestServer();
    for (const name of ["token", "mcp-token"]) {
      expect(statSync(join(server.dataDir, name)).mode & 0o777).toBe(0o600);
    }
  });

  it("logs a browser in with a redirect that drops the token and an HttpOnly SameSite=Strict cookie", async () => {
    await using server = await startTestServer();
    const res = await fetch(`${server.url}/?token=${server.token}`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain(server.token);

    const bad = await fetch(`${server.url}/?token=wrong`, { redirect: "manual" });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("set-cookie")).toBeNull();

    // The workflow a link names survives the redirect, escaped: it cannot add a header or leave the site.
    const linked = await fetch(
      `${server.url}/?token=${server.token}&workflow=${encodeURIComponent("wf_1\r\nX: y//evil")}`,
      {
        redirect: "manual",
      },
    );
    expect(linked.headers.get("location")).toBe("/?workflow=wf_1%0D%0AX%3A%20y%2F%2Fevil");
    expect(linked.headers.get("x")).toBeNull();

    const page = await fetch(`${server.url}/`);
    expect(await page.text()).toContain("not signed in");
  });

  it("refuses the person's acts to a bearer token (403) and to cross-origin cookie requests", async () => {
    await using server = await startTestServer();
    const { sessionId } = await server.script.session.create.mutate({});
    await expect(server.script.session.setMode.mutate({ sessionId, mode: "auto" })).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
    await expect(
      server.script.approvals.respond.mutate({ approvalId: "apr_x", answer: "allow" }),
    ).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
    await expect(server.script.session.revoke.mutate({ sessionId })).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });

    const cookie = await server.login();
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/trpc/session.setMode`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie, ...headers },
        body: JSON.stringify({ sessionId, mode: "auto" }),
      });
    expect((await post({ origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ "sec-fetch-site": "cross-site" })).status).toBe(403);
    // A cookie with no evidence of same origin cannot act as the person either.
    expect((await post({})).status).toBe(403);
    expect(await server.app.sessions.mode(sessionId)).toBe("default");
    expect((await post({ origin: server.url })).status).toBe(200);
    expect(await server.app.sessions.mode(sessionId)).toBe("auto");
  });

  it("refuses auto mode at session.create to a token, as setMode does, unless the operator opted in", async () => {
    await using server = await startTestServer({ allowTokenAutoMode: false });
    const count = async () =>
      ((await server.app.store.sql("SELECT count(*) AS n FROM sessions").get()) as { n: number }).n;
    const { token } = await new ApiTokens(server.app.store).add("local", "agent");
    const api = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${server.url}/trpc`, headers: { authorization: `Bearer ${token}` } })],
    });
    for (const client of [server.script, api]) {
      await expect(client.session.create.mutate({ mode: "auto" })).rejects.toMatchObject({
        data: { httpStatus: 403, error: { code: "unauthorized" } },
      });
    }
    expect(await count()).toBe(0);
    // The other modes are a script's to choose; auto is the person's.
    expect(await api.session.create.mutate({ mode: "default" })).toMatchObject({ mode: "default" });
    expect(await server.script.session.create.mutate({ mode: "plan" })).toMatchObject({ mode: "plan" });
    const browser = await server.browser();
    expect(await browser.session.create.mutate({ mode: "auto" })).toMatchObject({ mode: "auto" });
    // A cookie without evidence of our own origin is not the person either.
    const cookie = await server.login();
    const bare = await fetch(`${server.url}/trpc/session.create`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ mode: "auto" }),
    });
    expect(bare.status).toBe(403);
    expect(await count()).toBe(3);

    // The operator's opt-in lets tokens create auto sessions; changing a mode stays the person's.
    await using optedIn = await startTestServer({ allowTokenAutoMode: true });
    const { sessionId } = await optedIn.script.session.create.mutate({ mode: "auto" });
    expect(await optedIn.app.sessions.mode(sessionId)).toBe("auto");
    await expect(optedIn.script.session.setMode.mutate({ sessionId, mode: "default" })).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
  });

  it("refuses non-JSON bodies, oversized bodies and oversized batches before any procedure runs", async () => {
    await using server = await startTestServer({ maxBodyBytes: 10_000, maxBatchSize: 100 });
    const auth = { authorization: `Bearer ${server.token}` };
    const count = async () =>
      ((await server.app.store.sql("SELECT count(*) AS n FROM sessions").get()) as { n: number }).n;

    const form = await fetch(`${server.url}/trpc/session.create`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
      body: "mode=auto",
    });
    expect(form.status).toBe(415);

    const big = await fetch(`${server.url}/trpc/session.create`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ modules: ["x".repeat(20_000)] }),
    });
    expect(big.status).toBe(413);

    const paths = (n: number) => Array.from({ length: n }, () => "session.create").join(",");
    const input = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}])));
    const tooMany = await fetch(`${server.url}/trpc/${paths(101)}?batch=1`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: input(101),
    });
    expect(tooMany.status).toBe(413);
    expect(await count()).toBe(0);

    const ok = await fetch(`${server.url}/trpc/${paths(100)}?batch=1`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: input(100),
    });
    expect(ok.status).toBe(200);
    expect(await count()).toBe(100);
  });

  it("refuses a foreign Host header (DNS rebinding)", async () => {
    await using server = await startTestServer();
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/health`, { headers: { host: "evil.example" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});
