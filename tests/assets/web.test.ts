/**
 * `http_request` through the real server against loopback test servers that configuration allows:
 * what a response looks like, the size cap, redirects followed by hand, the timeout, and the gate
 * (plan blocks, default asks, auto runs), also for an http.request node. The SSRF guard is ssrf.test.ts.
 */

import { describe, expect, it } from "vitest";
import { openLocalRun } from "../../server-bridge/runs/local.ts";
import { answerValue, errorOf, type JobResult, node, openRun } from "../engine/support.ts";
import { ScriptedApprover } from "../support/approver.ts";
import { watchEvents } from "../support/events.ts";
import { auditedDecisions, startTestServer, WORKFLOWS } from "../support/server.ts";
import { b64, echo, startLoopback, unb64, WEB } from "./support.ts";

interface Response {
  status: number;
  ok: boolean;
  url: string;
  redirects: string[];
  headers: Record<string, string>;
  body_type: string;
  text?: string;
  json?: unknown;
  bytes?: { $bytes: string };
  size: number;
  truncated: boolean;
}

describe("http_request against an allowed loopback server", () => {
  it("returns status, headers and the body as text, JSON or bytes; sends method, headers and body", async () => {
    await using loop = await echo();
    await using server = await startTestServer({ httpAllowHosts: [loop.hostPort] });
    const { call } = await openRun(server, "auto");

    const text = answerValue<Response>(await call(WEB, "request", [`${loop.origin}/hello?q=1`]));
    expect(text).toMatchObject({ status: 200, ok: true, body_type: "text", text: "GET /hello?q=1 ", truncated: false });
    expect(text.headers["x-seen-method"]).toBe("GET");
    expect(loop.seen[0]?.headers.host).toBe(loop.hostPort);

    // Through the transport a `$`-key of remote JSON is escaped, never mistaken for a marker.
    const json = answerValue<Response>(await call(WEB, "request", [`${loop.origin}/json`]));
    expect(json).toMatchObject({ body_type: "json", json: { $$schema: "s", items: [1, 2] } });

    const bytes = answerValue<Response>(await call(WEB, "request", [`${loop.origin}/bytes`]));
    expect(bytes.body_type).toBe("bytes");
    expect([...unb64(bytes.bytes?.$bytes ?? "")]).toEqual([0, 1, 2, 255]);

    const posted = answerValue<Response>(
      await call(WEB, "request", [
        { url: `${loop.origin}/post`, method: "POST", body: { a: 1 }, headers: { "X-Token": "t1" } },
      ]),
    );
    expect(posted.text).toBe('POST /post {"a":1}');
    const seen = loop.seen.at(-1);
    expect(seen?.headers["content-type"]).toBe("application/json");
    expect(seen?.headers["x-token"]).toBe("t1");

    await call(WEB, "request", [
      { url: `${loop.origin}/raw`, method: "PUT", body: { $bytes: b64(Buffer.from("hi")) } },
    ]);
    expect(loop.seen.at(-1)?.body.toString()).toBe("hi");

    const smuggle = errorOf(await call(WEB, "request", [{ url: loop.origin, headers: { Host: "evil.test" } }]));
    expect(smuggle.code).toBe("invalid_tool_arguments");
  });

  it("cuts a body off at the configured cap and says so", async () => {
    await using loop = await echo();
    await using server = await startTestServer({ httpAllowHosts: [loop.hostPort], httpMaxResponseBytes: 1000 });
    const { call } = await openRun(server, "auto");
    const big = answerValue<Response>(await call(WEB, "request", [`${loop.origin}/big`]));
    expect(big).toMatchObject({ size: 1000, truncated: true });
    expect(big.text).toBe("x".repeat(1000));
  });

  it("follows redirects by hand: relative, 303 to GET, credentials dropped across origins, bounded", async () => {
    await using other = await echo();
    await using loop = await startLoopback((req, res) => {
      const to: Record<string, [number, string]> = {
        "/rel": [302, "/final"],
        "/see-other": [303, "/final"],
        "/away": [307, `${other.origin}/landed`],
        "/loop": [302, "/loop"],
      };
      const hop = to[req.url];
      if (hop) {
        res.writeHead(hop[0], { location: hop[1] });
        res.end();
      } else {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(`${req.method} ${req.url} auth=${req.headers.authorization ?? "none"}`);
      }
    });
    await using server = await startTestServer({
      httpAllowHosts: [loop.hostPort, other.hostPort],
      httpMaxRedirects: 3,
    });
    const { call } = await openRun(server, "auto");

    const rel = answerValue<Response>(await call(WEB, "request", [`${loop.origin}/rel`]));
    expect(rel).toMatchObject({ text: "GET /final auth=none", url: `${loop.origin}/final` });
    expect(rel.redirects).toEqual([`${loop.origin}/final`]);

    const seeOther = answerValue<Response>(
      await call(WEB, "request", [{ url: `${loop.origin}/see-other`, method: "POST", body: "x" }]),
    );
    expect(seeOther.text).toBe("GET /final auth=none");

    const away = answerValue<Response>(
      await call(WEB, "request", [{ url: `${loop.origin}/away`, headers: { Authorization: "Bearer secret" } }]),
    );
    expect(away.url).toBe(`${other.origin}/landed`);
    expect(other.seen.at(-1)?.headers.authorization).toBeUndefined();

    const looped = errorOf(await call(WEB, "request", [`${loop.origin}/loop`]));
    expect(looped.message).toMatch(/stopped after 3 redirects/);

    const manual = answerValue<Response>(
      await call(WEB, "request", [{ url: `${loop.origin}/rel`, follow_redirects: false }]),
    );
    expect(manual).toMatchObject({ status: 302, headers: { location: "/final" } });
  });

  it("answers timeout when the server never answers", async () => {
    await using silent = await startLoopback(() => {});
    await using server = await startTestServer({ httpAllowHosts: [silent.hostPort] });
    const { call } = await openRun(server, "auto");
    const slow = errorOf(await call(WEB, "request", [{ url: silent.origin, timeout_ms: 200 }]));
    expect(slow.code).toBe("timeout");
  });
});

describe("gate parity: http_request (external)", () => {
  it("plan blocks, default asks on the event stream and the browser's answer decides, auto runs", async () => {
    await using loop = await echo();
    await using server = await startTestServer({ httpAllowHosts: [loop.hostPort] });
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({ mode: "plan" });
    using events = await watchEvents(browser, sessionId);
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const call = (callId?: string) =>
      server.script.run.invoke.mutate({
        runId,
        module: WEB,
        export: "request",
        args: [`${loop.origin}/gate`],
        ...(callId ? { callId } : {}),
      });

    expect(await call()).toMatchObject({ ok: false, error: { code: "blocked_in_plan_mode" } });
    await browser.session.setMode.mutate({ sessionId, mode: "default" });

    const denied = call("c1");
    const ask1 = await events.next("approval_requested");
    expect(ask1.approval).toMatchObject({
      capability: "http_request",
      category: "external",
      message: `GET ${loop.origin}/gate`,
    });
    await browser.approvals.respond.mutate({ approvalId: ask1.approval.approval_id, answer: "deny" });
    expect(await denied).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(loop.seen).toEqual([]);

    const allowed = call("c2");
    const ask2 = await events.next("approval_requested");
    await browser.approvals.respond.mutate({ approvalId: ask2.approval.approval_id, answer: "allow" });
    expect(await allowed).toMatchObject({ ok: true, value: { status: 200, text: "GET /gate " } });

    await browser.session.setMode.mutate({ sessionId, mode: "auto" });
    expect(await call()).toMatchObject({ ok: true, value: { status: 200 } });
    expect(loop.seen).toHaveLength(2);
    expect(events.events.filter((e) => e.type === "approval_requested")).toHaveLength(2);

    expect(await auditedDecisions(server, runId, "http_request")).toEqual([
      { decision: "block", outcome: "blocked_in_plan_mode" },
      { decision: "ask", outcome: "permission_denied" },
      { decision: "ask", outcome: "ok" },
      { decision: "run", outcome: "ok" },
    ]);
  });

  it("an http.request node in a workflow calls http_request on the job's run, named in the prompt", async () => {
    await using loop = await echo();
    await using server = await startTestServer({ httpAllowHosts: [loop.hostPort] });
    const { call } = await openRun(server, "auto");
    const graph = { nodes: [node("get", "http.request", { url: `${loop.origin}/json` })], edges: [] };
    const job = answerValue<JobResult>(await call(WORKFLOWS, "run", [{ graph }]));
    expect(job.status).toBe("completed");
    expect(job.outputs?.get).toMatchObject({ status: 200, body: { items: [1, 2] } });

    // In default mode the prompt for run_workflow names the external effect; denying it sends nothing.
    const approver = new ScriptedApprover("deny");
    const asked = approver.asked;
    const local = await openLocalRun(server.app, { mode: "default", approver });
    expect(await local.live.run.invoke("run_workflow", { graph })).toMatchObject({
      ok: false,
      error: { code: "permission_denied" },
    });
    expect(asked[0]?.message).toContain("external (http_request, from http.request)");
    await local.end();
    expect(loop.seen).toHaveLength(1);
  });
});
