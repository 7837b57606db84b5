/**
 * What stops an injected instruction: "allow for session" on http_request covers the approved
 * destination origin only, so text in a fetched page that sends the agent elsewhere asks again.
 */
import { describe, expect, it } from "vitest";
import { openLocalRun } from "../../server-bridge/runs/local.ts";
import { ScriptedApprover } from "../support/approver.ts";
import { startTestServer } from "../support/server.ts";

describe("allow for session, scoped", () => {
  it("allows the approved origin for the session, and asks again for any other", async () => {
    await using server = await startTestServer();
    const approver = new ScriptedApprover(["allow_for_session", "deny"]);
    const local = await openLocalRun(server.app, { mode: "default", approver });
    const call = (url: string) => local.live.run.invoke("http_request", { url, timeout_ms: 1000 });
    await call("https://api.example/one");
    expect(approver.asked[0]).toMatchObject({ capability: "http_request", scope: "https://api.example" });
    expect(await server.app.sessions.allowed(local.sessionId)).toEqual(["http_request@https://api.example"]);
    // The same origin runs without asking; another origin (or the same host on another port) asks.
    await call("https://api.example/two?x=1");
    expect(approver.asked).toHaveLength(1);
    const denied = await call("https://evil.example/steal");
    expect(denied).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(approver.asked.map((r) => r.scope)).toEqual(["https://api.example", "https://evil.example"]);
    await local.end();
  });
});
