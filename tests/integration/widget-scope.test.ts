/**
 * What a widget's credential may touch, on the real server: only its widget's sessions, runs and
 * approvals (never another widget's, nor the owner's own), only its allowed modules, never above its
 * highest mode, within its limits; the person's acts (approvals, mode) only from the widget's own page,
 * never from a host page or a script; its calls are the agent's, never the user's.
 */
import { describe, expect, it } from "vitest";
import { TurnBatch } from "../../shared/agent/messages.ts";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { startTestServer, WORKFLOWS } from "../support/server.ts";
import { addWidget, credentialFor, HOST_ORIGIN, widgetHttp, widgetSocket } from "../support/widgets.ts";

const SHARED = "@nodetool-ai/sandbox-nodetool/shared";

describe("a widget credential's scope", () => {
  it("touches only its own widget's sessions, runs and approvals", async () => {
    await using server = await startTestServer();
    const a = await addWidget(server);
    const b = await addWidget(server);
    const asA = widgetHttp(server, await credentialFor(server, a));
    const asB = widgetHttp(server, await credentialFor(server, b));
    const own = await asA.session.create.mutate({});
    const { runId } = await asA.run.start.mutate({ sessionId: own.sessionId });
    const mine = await server.script.session.create.mutate({ mode: "default" });
    const { runId: ownerRun } = await server.script.run.start.mutate({ sessionId: mine.sessionId });

    // Another visitor of the same widget sees it: the scope is the widget.
    const sameWidget = widgetHttp(server, await credentialFor(server, a));
    expect((await sameWidget.session.get.query({ sessionId: own.sessionId })).sessionId).toBe(own.sessionId);

    await expect(asB.session.get.query({ sessionId: own.sessionId })).rejects.toThrow(/not this widget's/);
    await expect(asB.run.end.mutate({ runId })).rejects.toThrow(/not this widget's/);
    await expect(asB.run.invoke.mutate({ runId, module: SHARED, export: "list", args: [] })).rejects.toThrow(
      /not this widget's/,
    );
    await expect(asA.session.get.query({ sessionId: mine.sessionId })).rejects.toThrow(/not this widget's/);
    await expect(asA.run.cancel.mutate({ runId: ownerRun })).rejects.toThrow(/not this widget's/);

    // An approval of widget A's run: widget B cannot answer it even with its own page's headers.
    const asked = asA.run.invoke.mutate({ runId, module: WORKFLOWS, export: "create", args: ["asks"] });
    await expect
      .poll(async () => (await asA.approvals.pending.query({ sessionId: own.sessionId })).approvals.length)
      .toBe(1);
    const [approval] = (await asA.approvals.pending.query({ sessionId: own.sessionId })).approvals;
    await expect(
      asB.approvals.respond.mutate({ approvalId: approval?.approval_id ?? "", answer: "allow" }),
    ).rejects.toThrow(/not this widget's/);
    await asA.approvals.respond.mutate({ approvalId: approval?.approval_id ?? "", answer: "deny" });
    expect(await asked).toMatchObject({ ok: false, error: { code: "permission_denied" } });
  });

  it("acts as the widget's own user: the owner's workflows are not there", async () => {
    await using server = await startTestServer();
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    await server.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "create", args: ["the owner's"] });
    const widget = await addWidget(server);
    const asWidget = widgetHttp(server, await credentialFor(server, widget));
    const session = await asWidget.session.create.mutate({});
    const run = await asWidget.run.start.mutate({ sessionId: session.sessionId });
    const listed = await asWidget.run.invoke.mutate({ runId: run.runId, module: WORKFLOWS, export: "list", args: [] });
    expect(listed).toMatchObject({ ok: true, value: { workflows: [] } });

    const shared = await addWidget(server, { actAsOwner: true });
    const asOwner = widgetHttp(server, await credentialFor(server, shared));
    const ownerSession = await asOwner.session.create.mutate({});
    const ownerRun = await asOwner.run.start.mutate({ sessionId: ownerSession.sessionId });
    const seen = await asOwner.run.invoke.mutate({
      runId: ownerRun.runId,
      module: WORKFLOWS,
      export: "list",
      args: [],
    });
    expect(seen).toMatchObject({ ok: true, value: { workflows: [{ name: "the owner's" }] } });
  });

  it("mounts only the widget's modules and never runs above its highest mode", async () => {
    await using server = await startTestServer();
    const widget = await addWidget(server, { modules: ["shared", "workflows"], maxMode: "default" });
    const credential = await credentialFor(server, widget);
    const own = widgetHttp(server, credential);
    const session = await own.session.create.mutate({});
    expect(session).toMatchObject({ mode: "default", modules: ["shared", "workflows"] });
    await expect(own.session.create.mutate({ modules: ["ui"] })).rejects.toThrow(/may not mount "ui"/);
    await expect(own.session.create.mutate({ mode: "auto" })).rejects.toThrow(/at most "default" mode/);
    await expect(own.session.setMode.mutate({ sessionId: session.sessionId, mode: "auto" })).rejects.toThrow(
      /at most "default" mode/,
    );
    expect((await own.session.setMode.mutate({ sessionId: session.sessionId, mode: "plan" })).mode).toBe("plan");
    const { runId } = await own.run.start.mutate({ sessionId: session.sessionId });
    const memory = await own.run.invoke.mutate({
      runId,
      module: "@nodetool-ai/sandbox-nodetool/memory",
      export: "search",
      args: ["x"],
    });
    expect(memory).toMatchObject({ ok: false, error: { code: "unknown_module" } });

    // Its own plan-mode refusal tells the model to ask the user to switch mode: this session may.
    const write = { module: WORKFLOWS, export: "create", args: ["W"] };
    expect(await own.run.invoke.mutate({ runId, ...write })).toMatchObject({
      ok: false,
      error: { code: "blocked_in_plan_mode", message: expect.stringContaining("Ask the user to switch mode") },
    });

    const planned = await addWidget(server, { maxMode: "plan" });
    const asPlanned = widgetHttp(server, await credentialFor(server, planned));
    const plannedSession = await asPlanned.session.create.mutate({});
    expect(plannedSession.mode).toBe("plan");
    // A widget that allows plan mode only: its person can choose no other, so the model is not told to ask.
    const plannedRun = await asPlanned.run.start.mutate({ sessionId: plannedSession.sessionId });
    const refused = await asPlanned.run.invoke.mutate({ runId: plannedRun.runId, ...write });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: "blocked_in_plan_mode", message: expect.stringContaining("Plan is the highest mode") },
    });
    expect(JSON.stringify(refused)).not.toContain("switch mode");

    const auto = await addWidget(server, { maxMode: "auto" });
    const asAuto = widgetHttp(server, await credentialFor(server, auto));
    expect((await asAuto.session.create.mutate({})).mode).toBe("default");
    expect((await asAuto.session.create.mutate({ mode: "auto" })).mode).toBe("auto");
  });

  it("tells its agent's model of the widget's modules only", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "Hello." }] });
    await using server = await startTestServer({
      agent: {
        openaiBaseUrl: fake.url,
        openaiApiKey: "sk-test",
        stepTokens: 1000,
        threadTokens: 1e6,
        dailyTokens: 1e6,
        stepCap: 5,
      },
    });
    const widget = await addWidget(server, { modules: ["memory", "shared"] });
    await using socket = widgetSocket(server, await credentialFor(server, widget));
    const { id: threadId } = await socket.api.agent.threads.create.mutate({});
    await new Promise<void>((resolve, reject) => {
      const append = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];
      const sub = socket.api.agent.turn.subscribe(
        { threadId, requestId: "req_1", append },
        {
          onData: ({ data }) => {
            const last = TurnBatch.parse(data).events.at(-1)?.type;
            if (last === "done" || last === "error") {
              sub.unsubscribe();
              resolve();
            }
          },
          onError: reject,
        },
      );
    });
    const [request] = fake.requests as { tools: { function: { name: string; description: string } }[] }[];
    const description =
      request?.tools.find((tool) => tool.function.name === "execute_code")?.function.description ?? "";
    expect(description).toMatch(/^ {2}memory - /m);
    expect(description).toMatch(/^ {2}shared - /m);
    expect(description).not.toMatch(/^ {2}(workflows|collections|web|ui) - /m);
    // The import example names a module the action may import.
    expect(description).toContain('import { memory } from "@nodetool-ai/sandbox-nodetool/memory"');
  });

  it("the person's acts only from the widget's own page: not from a host page, not from a script", async () => {
    await using server = await startTestServer();
    const widget = await addWidget(server, { maxMode: "auto" });
    const credential = await credentialFor(server, widget);
    const own = widgetHttp(server, credential);
    const { sessionId } = await own.session.create.mutate({});
    const { runId } = await own.run.start.mutate({ sessionId });

    // A host page holding the credential is refused at the door (cross-site).
    const fromHost = await fetch(
      `${server.url}/trpc/approvals.pending?input=${encodeURIComponent(JSON.stringify({ sessionId }))}`,
      {
        headers: { authorization: `Bearer ${credential}`, origin: HOST_ORIGIN, "sec-fetch-site": "cross-site" },
      },
    );
    expect(fromHost.status).toBe(403);
    expect(await fromHost.text()).toContain("Cross-origin requests are refused");
    const script = widgetHttp(server, credential, "script");
    await expect(script.session.setMode.mutate({ sessionId, mode: "plan" })).rejects.toThrow(
      /Only the signed-in person/,
    );
    await expect(script.session.create.mutate({ mode: "auto" })).rejects.toThrow(/auto mode/);

    const asked = own.run.invoke.mutate({ runId, module: WORKFLOWS, export: "create", args: ["asked"] });
    await expect.poll(async () => (await own.approvals.pending.query({ sessionId })).approvals.length).toBe(1);
    const approvalId = (await own.approvals.pending.query({ sessionId })).approvals[0]?.approval_id ?? "";
    await expect(script.approvals.respond.mutate({ approvalId, answer: "allow" })).rejects.toThrow(
      /Only the signed-in person/,
    );
    // Over a socket: from a script (no Origin) refused; from the widget's page, answered.
    await using scriptSocket = widgetSocket(server, credential, false);
    await expect(scriptSocket.api.approvals.respond.mutate({ approvalId, answer: "allow" })).rejects.toThrow(
      /Only the signed-in person/,
    );
    await using pageSocket = widgetSocket(server, credential);
    await pageSocket.api.approvals.respond.mutate({ approvalId, answer: "allow" });
    expect(await asked).toMatchObject({ ok: true, value: { name: "asked" } });
    expect((await pageSocket.api.session.setMode.mutate({ sessionId, mode: "auto" })).mode).toBe("auto");
  });

  it("its own controls' calls are the agent's: a user-actor write still asks the person", async () => {
    await using server = await startTestServer();
    const widget = await addWidget(server);
    const own = widgetHttp(server, await credentialFor(server, widget));
    const { sessionId } = await own.session.create.mutate({});
    const { runId } = await own.run.start.mutate({ sessionId });
    const call = own.run.invoke.mutate({
      runId,
      module: WORKFLOWS,
      export: "create",
      args: ["as the user?"],
      actor: "user",
    });
    await expect.poll(async () => (await own.approvals.pending.query({ sessionId })).approvals.length).toBe(1);
    const approvalId = (await own.approvals.pending.query({ sessionId })).approvals[0]?.approval_id ?? "";
    await own.approvals.respond.mutate({ approvalId, answer: "deny" });
    expect(await call).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    await server.app.audit.flush();
    const actors = await server.app.store.sql("SELECT DISTINCT actor FROM audit WHERE run_id = ?").all(runId);
    expect(actors).toEqual([{ actor: "agent" }]);
  });

  it("holds the widget to its limits: actions in flight and calls per minute", async () => {
    await using server = await startTestServer();
    const widget = await addWidget(server, { maxActions: 1, callsPerMinute: 3 });
    const own = widgetHttp(server, await credentialFor(server, widget));
    const { sessionId } = await own.session.create.mutate({});
    const { runId } = await own.run.start.mutate({ sessionId });
    await expect(own.run.start.mutate({ sessionId })).rejects.toThrow(/allows 1 actions at once/);
    const list = () => own.run.invoke.mutate({ runId, module: SHARED, export: "list", args: [] });
    for (let i = 0; i < 3; i++) expect(await list()).toMatchObject({ ok: true });
    const fourth = await list();
    expect(fourth).toMatchObject({ ok: false, error: { code: "invalid_call" } });
    expect(JSON.stringify(fourth)).toMatch(/3 capability calls a minute/);
    await own.run.end.mutate({ runId });
    expect((await own.run.start.mutate({ sessionId })).runId).toMatch(/^run_/);
    // The limits are the widget's: the owner's own sessions are not counted or held.
    const mine = await server.script.session.create.mutate({});
    const ownerRun = await server.script.run.start.mutate({ sessionId: mine.sessionId });
    expect(
      await server.script.run.invoke.mutate({ runId: ownerRun.runId, module: SHARED, export: "list", args: [] }),
    ).toMatchObject({ ok: true });
  });
});
