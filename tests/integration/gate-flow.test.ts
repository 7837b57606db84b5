import { describe, expect, it } from "vitest";
import type { Store } from "../../server-bridge/store/db.ts";
import { watchEvents } from "../support/events.ts";
import { startTestServer, untilSettled, WORKFLOWS } from "../support/server.ts";
import { addWidget, credentialFor, widgetSocket } from "../support/widgets.ts";

const countWorkflows = async (server: { app: { store: Store } }) =>
  ((await server.app.store.sql("SELECT count(*) AS n FROM workflows").get()) as { n: number }).n;

describe("the gate through the server: a script calls, the signed-in browser answers", () => {
  it("asks in default mode; allow once runs it, deny refuses it, allow-for-session covers that name only", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({ mode: "default" });
    using events = await watchEvents(browser, sessionId);
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const call = (exp: string, args: unknown[], callId?: string) =>
      server.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: exp, args, ...(callId ? { callId } : {}) });

    // Reads run without a prompt.
    expect(await call("list", [])).toMatchObject({ ok: true });

    // Allow once.
    const first = call("create", [{ name: "one", _message: "making a workflow for you" }], "c1");
    const asked = await events.next("approval_requested");
    expect(asked.approval).toMatchObject({
      capability: "create_workflow",
      category: "write",
      agent_message: "making a workflow for you",
    });
    expect(asked.approval.args).toMatchObject({ name: "one" });
    await browser.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow" });
    const created = await first;
    expect(created).toMatchObject({ ok: true, value: { name: "one", version: 1 } });
    expect((created as { waited_ms?: number }).waited_ms).toBeGreaterThanOrEqual(0);
    expect(await events.next("approval_settled")).toMatchObject({ status: "allow" });

    // A second answer to the same approval is refused and changes nothing.
    await expect(
      browser.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "deny" }),
    ).rejects.toMatchObject({ message: expect.stringContaining("already settled") });
    await expect(browser.approvals.respond.mutate({ approvalId: "apr_unknown", answer: "allow" })).rejects.toThrow();

    // Deny.
    const denied = call("create", [{ name: "two" }], "c2");
    const asked2 = await events.next("approval_requested");
    await browser.approvals.respond.mutate({ approvalId: asked2.approval.approval_id, answer: "deny" });
    expect(await denied).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(await countWorkflows(server)).toBe(1);

    // Allow for session: the next create runs unasked; a different write name still asks.
    const third = call("create", ["three"], "c3");
    const asked3 = await events.next("approval_requested");
    await browser.approvals.respond.mutate({ approvalId: asked3.approval.approval_id, answer: "allow_for_session" });
    expect(await third).toMatchObject({ ok: true });
    expect(await browser.session.allowed.query({ sessionId })).toEqual({ allowed: ["create_workflow"] });
    const fourth = await call("create", ["four"], "c4");
    expect(fourth).toMatchObject({ ok: true });
    expect("waited_ms" in fourth).toBe(false);
    const id = (fourth as { value: { id: string } }).value.id;
    const deleting = call("delete", [id], "c5");
    const asked5 = await events.next("approval_requested");
    expect(asked5.approval.capability).toBe("delete_workflow");
    await browser.approvals.respond.mutate({ approvalId: asked5.approval.approval_id, answer: "allow" });
    expect(await deleting).toMatchObject({ ok: true });

    // Revoking the allow-set makes create ask again.
    expect(await browser.session.revoke.mutate({ sessionId, capability: "create_workflow" })).toEqual({ allowed: [] });
    const fifth = call("create", ["five"], "c6");
    const asked6 = await events.next("approval_requested");
    expect(asked6.approval.capability).toBe("create_workflow");
    await browser.approvals.respond.mutate({ approvalId: asked6.approval.approval_id, answer: "deny" });
    expect(await fifth).toMatchObject({ ok: false, error: { code: "permission_denied" } });

    // Plan blocks writes, auto runs them.
    await browser.session.setMode.mutate({ sessionId, mode: "plan" });
    expect(await call("create", ["six"])).toMatchObject({ ok: false, error: { code: "blocked_in_plan_mode" } });
    await browser.session.setMode.mutate({ sessionId, mode: "auto" });
    expect(await call("create", ["seven"])).toMatchObject({ ok: true });

    // Every outcome is audited.
    await server.app.audit.flush();
    const outcomes = await server.app.store
      .sql("SELECT capability, outcome FROM audit WHERE run_id = ? ORDER BY id")
      .all(runId);
    expect(outcomes).toContainEqual({ capability: "create_workflow", outcome: "permission_denied" });
    expect(outcomes).toContainEqual({ capability: "create_workflow", outcome: "blocked_in_plan_mode" });
    expect(outcomes.length).toBeGreaterThanOrEqual(9);
  });

  it("holds a waiting call, answers pending, and resumes by callId without running twice", async () => {
    await using server = await startTestServer({ holdMs: 200 });
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({});
    using events = await watchEvents(browser, sessionId);
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const input = { runId, module: WORKFLOWS, export: "create", args: ["held"], callId: "k1" };

    expect(await server.script.run.invoke.mutate(input)).toEqual({ pending: true });
    expect(await server.script.run.invoke.mutate(input)).toEqual({ pending: true });
    const asked = await events.next("approval_requested");
    // Only one approval for the one call, however often it was re-sent.
    expect(events.events.filter((e) => e.type === "approval_requested")).toHaveLength(1);
    await browser.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow" });
    const settled = await untilSettled(() => server.script.run.invoke.mutate(input));
    expect(settled).toMatchObject({ ok: true, value: { name: "held" } });
    expect(await server.script.run.invoke.mutate(input)).toEqual(settled);
    expect(await countWorkflows(server)).toBe(1);

    // The same callId with other args is refused.
    expect(await server.script.run.invoke.mutate({ ...input, args: ["other"] })).toMatchObject({
      ok: false,
      error: { code: "invalid_call" },
    });
  });

  it("replays pending approvals to a browser that connects later", async () => {
    await using server = await startTestServer({ holdMs: 100 });
    const { sessionId } = await server.script.session.create.mutate({});
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const input = { runId, module: WORKFLOWS, export: "create", args: ["late"], callId: "r1" };
    expect(await server.script.run.invoke.mutate(input)).toEqual({ pending: true });

    const browser = await server.browser();
    using events = await watchEvents(browser, sessionId);
    const replayed = await events.next("approval_requested");
    expect(replayed.approval.capability).toBe("create_workflow");
    await browser.approvals.respond.mutate({ approvalId: replayed.approval.approval_id, answer: "allow" });
    expect(await server.script.run.invoke.mutate(input)).toMatchObject({ ok: true });
  });

  it("asks a script's approval in its user's signed-in page, on the page's own stream, and never in a widget", async () => {
    await using server = await startTestServer({ holdMs: 100 });
    const browser = await server.browser();
    const page = await browser.session.create.mutate({ mode: "default" });
    using pageEvents = await watchEvents(browser, page.sessionId);
    // A widget acting as the same user (the owner's account) hears nothing of it.
    const widget = await addWidget(server, { actAsOwner: true });
    await using widgetClient = widgetSocket(server, await credentialFor(server, widget));
    const widgetSession = await widgetClient.api.session.create.mutate({});
    const widgetEvents: string[] = [];
    const sub = widgetClient.api.session.events.subscribe(
      { sessionId: widgetSession.sessionId },
      { onData: ({ data }) => widgetEvents.push((data as { type: string }).type) },
    );

    const { sessionId } = await server.script.session.create.mutate({ mode: "default" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const input = { runId, module: WORKFLOWS, export: "create", args: ["from a script"], callId: "s1" };
    expect(await server.script.run.invoke.mutate(input)).toEqual({ pending: true });
    const asked = await pageEvents.next("approval_requested");
    expect(asked.approval).toMatchObject({ from: "script", run_id: runId, capability: "create_workflow" });

    // A page that connects later is replayed it too; once answered, both pages hear it settled.
    const later = await server.browser();
    const laterPage = await later.session.create.mutate({});
    using laterEvents = await watchEvents(later, laterPage.sessionId);
    expect((await laterEvents.next("approval_requested")).approval.approval_id).toBe(asked.approval.approval_id);
    await browser.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow" });
    expect(await pageEvents.next("approval_settled")).toMatchObject({ approval_id: asked.approval.approval_id });
    expect(await laterEvents.next("approval_settled")).toMatchObject({ status: "allow" });
    expect(await untilSettled(() => server.script.run.invoke.mutate(input))).toMatchObject({ ok: true });
    expect(await countWorkflows(server)).toBe(1);

    // The page's own approvals are not a script's, and the widget heard none of the script's.
    const own = await browser.run.start.mutate({ sessionId: page.sessionId });
    const ownCall = browser.run.invoke.mutate({ runId: own.runId, module: WORKFLOWS, export: "create", args: ["own"] });
    const ownAsked = await pageEvents.next("approval_requested");
    expect(ownAsked.approval.from).toBeUndefined();
    await browser.approvals.respond.mutate({ approvalId: ownAsked.approval.approval_id, answer: "deny" });
    expect(await ownCall).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    sub.unsubscribe();
    expect(widgetEvents.filter((type) => type.startsWith("approval"))).toEqual([]);
  });

  it("ends an unanswered approval as approval_timeout, recorded as a timeout", async () => {
    await using server = await startTestServer({ approvalTimeoutMs: 150 });
    const { sessionId } = await server.script.session.create.mutate({});
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const result = await server.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "create", args: ["t"] });
    expect(result).toMatchObject({ ok: false, error: { code: "approval_timeout" } });
    const row = await server.app.store.sql("SELECT status FROM approvals WHERE run_id = ?").get(runId);
    expect(row).toEqual({ status: "timeout" });
    expect(await countWorkflows(server)).toBe(0);
  });

  it("names the user's own workflow, asset and job in an approval's message, and never another user's", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    using events = await watchEvents(browser, sessionId);
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const call = async (module: string, exp: string, args: unknown[]) => {
      const answer = await server.script.run.invoke.mutate({ runId, module, export: exp, args });
      if (!("ok" in answer) || !answer.ok) throw new Error(JSON.stringify(answer));
      return answer.value as Record<string, string>;
    };
    const ns = (name: string) => `@nodetool-ai/sandbox-nodetool/${name}`;
    const graph = { nodes: [{ id: "wait", type: "control.delay", data: { ms: 60000, value: 1 } }], edges: [] };
    const workflow = await call(WORKFLOWS, "create", [{ name: 'Sum "two"', graph }]);
    const asset = await call(ns("assets"), "save", ["notes.txt", "hello"]);
    const job = await call(WORKFLOWS, "start", [workflow.id]);
    const other = await server.app.credentials.addUser("mallory");
    await server.app.store
      .sql(
        "INSERT INTO workflows (id, user_id, name, description, graph, version, created_at, updated_at) VALUES (?, ?, ?, '', ?, 1, 0, 0)",
      )
      .run("wf_hers", other.userId, "Her secret plans", JSON.stringify({ nodes: [], edges: [] }));
    await browser.session.setMode.mutate({ sessionId, mode: "default" });

    // Each asks; the person reads what it is about, and says no (nothing changes).
    const asked = async (module: string, exp: string, args: unknown[]) => {
      const answer = server.script.run.invoke.mutate({ runId, module, export: exp, args });
      const { approval } = await events.next("approval_requested");
      await browser.approvals.respond.mutate({ approvalId: approval.approval_id, answer: "deny" });
      expect(await answer).toMatchObject({ ok: false, error: { code: "permission_denied" } });
      return approval.message;
    };
    expect(await asked(WORKFLOWS, "delete", [workflow.id])).toBe(`Delete workflow "Sum \\"two\\"" (${workflow.id})`);
    expect(await asked(ns("assets"), "delete", [asset.id])).toBe(`Delete asset "notes.txt" (${asset.id})`);
    expect(await asked(ns("jobs"), "cancel", [job.job_id])).toBe(`Cancel job ${job.job_id} (of "Sum \\"two\\"")`);
    expect(await asked(WORKFLOWS, "run", [workflow.id])).toMatch(
      new RegExp(`^Run workflow "Sum .*" \\(${workflow.id}\\)\\. `),
    );
    // Another user's workflow keeps its bare id: the approval does not say what it is called.
    const hers = await asked(WORKFLOWS, "delete", ["wf_hers"]);
    expect(hers).toBe("Delete workflow wf_hers");
    expect(await server.app.store.sql("SELECT count(*) AS n FROM workflows").get()).toMatchObject({ n: 2 });
    await browser.session.setMode.mutate({ sessionId, mode: "auto" });
    await call(ns("jobs"), "cancel", [job.job_id]);
  });

  it("refuses calls on an ended run and on another user's run", async () => {
    await using server = await startTestServer();
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    await server.script.run.end.mutate({ runId });
    expect(await server.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "list", args: [] })).toMatchObject(
      {
        ok: false,
        error: { code: "run_ended" },
      },
    );

    const other = await server.app.credentials.addUser("mallory");
    const { runId: liveRun } = await server.script.run.start.mutate({ sessionId });
    const res = await fetch(`${server.url}/trpc/run.invoke`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${other.token}` },
      body: JSON.stringify({ runId: liveRun, module: WORKFLOWS, export: "list", args: [] }),
    });
    const body = (await res.json()) as { result: { data: unknown } };
    expect(body.result.data).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    const startOther = await fetch(`${server.url}/trpc/run.start`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${other.token}` },
      body: JSON.stringify({ sessionId }),
    });
    expect(startOther.status).toBe(403);
  });

  it("cancelling a run settles its pending approval and the call ends as run_ended", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({});
    using events = await watchEvents(browser, sessionId);
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const waiting = server.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "create", args: ["x"] });
    const asked = await events.next("approval_requested");
    await server.script.run.cancel.mutate({ runId });
    expect(await waiting).toMatchObject({ ok: false, error: { code: "run_ended" } });
    expect(await events.next("run_ended")).toMatchObject({ run_id: runId, reason: "cancelled" });
    await expect(
      browser.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow" }),
    ).rejects.toThrow();
    expect(await countWorkflows(server)).toBe(0);
  });
});
