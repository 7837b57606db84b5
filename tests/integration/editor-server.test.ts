/**
 * What the editor page needs from the server: the per-user workflow change feed (every session of the
 * user hears a create, rename or delete; another user's sessions do not), a person's own `Run workflow`
 * (its effects are the user's: audited as such, never prompted, even in default mode), and the jobs
 * list (newest first, with the workflow's current name and its outputs).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ListedJob } from "../../shared/protocol/server.ts";
import { fromWire } from "../../shared/protocol/values.ts";
import { answerValue, edge, JOBS, type JobResult, node } from "../engine/support.ts";
import { watchEvents } from "../support/events.ts";
import { startTestServer, WORKFLOWS } from "../support/server.ts";

describe("the editor's server side", () => {
  it("announces workflow changes to every session of the user, and to no one else", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { sessionId: acting } = await server.script.session.create.mutate({ mode: "auto" });
    const { sessionId: watching } = await browser.session.create.mutate({});
    using feed = await watchEvents(browser, watching);

    const other = await server.app.credentials.addUser("someone");
    const { sessionId: theirs } = await browser.session.create.mutate({});
    // Their session belongs to the browser's user; a session of the other user is made directly.
    const stranger = await server.app.sessions.create(other.userId, {});
    const strangerEvents: string[] = [];
    const stop = new AbortController();
    void (async () => {
      for await (const { event } of server.app.bus.subscribe(stranger.sessionId, stop.signal, null, other.userId)) {
        strangerEvents.push(event.type);
      }
    })();
    using second = await watchEvents(browser, theirs);

    const { runId } = await server.script.run.start.mutate({ sessionId: acting });
    const call = (exp: string, args: unknown[]) =>
      server.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: exp, args });
    const created = (await call("create", [{ name: "Fresh" }])) as { value: { id: string } };
    const id = created.value.id;
    expect(await feed.next("workflow_changed")).toMatchObject({
      change: "created",
      workflow: { id, name: "Fresh", version: 1 },
    });
    expect(await second.next("workflow_changed")).toMatchObject({ change: "created", workflow: { id } });

    await call("update", [{ workflow_id: id, name: "Renamed", description: "Adds things up" }]);
    expect(await feed.next("workflow_changed")).toMatchObject({
      change: "updated",
      workflow: { id, name: "Renamed", description: "Adds things up", version: 2 },
    });
    await call("delete", [id]);
    expect(await feed.next("workflow_changed")).toMatchObject({ change: "deleted", workflow: { id } });
    stop.abort();
    expect(strangerEvents).toEqual([]);
  });

  it("runs a person's Run workflow with the user's effects: no prompt in default mode, audited as the user", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { sessionId } = await browser.session.create.mutate({ mode: "default" });
    using events = await watchEvents(browser, sessionId);
    const { runId } = await browser.run.start.mutate({ sessionId, editor: true });
    const created = answerValue<{ id: string }>(
      (await browser.run.invoke.mutate({
        runId,
        module: WORKFLOWS,
        export: "create",
        args: [{ name: "Remember" }],
        actor: "user",
      })) as never,
    );
    const graph = {
      nodes: [
        node("remember", "memory.save", { content: "the person ran this" }),
        node("out", "workflow.output", { name: "saved" }),
      ],
      edges: [edge("remember", "out", "value")],
    };
    const authorized = await browser.run.authorize.mutate({
      runId,
      capability: "ui_run_workflow",
      args: { workflow_id: created.id, graph },
      callId: "run-1",
      actor: "user",
    });
    expect(authorized).toMatchObject({ ok: true, value: { authorized: true } });
    const started = await browser.run.startJob.mutate({ runId, callId: "run-1" });
    const jobId = (started as { value: { job_id: string } }).value.job_id;
    await browser.run.complete.mutate({ runId, callId: "run-1", ok: true });
    const ended = await events.next("job_ended");
    expect(ended).toMatchObject({ job_id: jobId, status: "completed" });
    expect(events.events.filter((e) => e.type === "approval_requested")).toEqual([]);

    await server.app.audit.flush();
    const effects = await server.app.store
      .sql("SELECT actor, decision, outcome FROM audit WHERE capability = 'save_memory'")
      .all();
    expect(effects).toEqual([{ actor: "user", decision: "run", outcome: "ok" }]);

    // The same graph run by the agent still asks for its write.
    const authorize = () =>
      browser.run.authorize.mutate({
        runId,
        capability: "ui_run_workflow",
        args: { workflow_id: created.id, graph },
        callId: "run-2",
      });
    void authorize();
    const ask = await events.next("approval_requested");
    expect(ask.approval.capability).toBe("ui_run_workflow");
    await browser.approvals.respond.mutate({ approvalId: ask.approval.approval_id, answer: "allow" });
    expect(await authorize()).toMatchObject({ ok: true });
    await browser.run.startJob.mutate({ runId, callId: "run-2" });
    const effect = await events.next("approval_requested");
    expect(effect.approval.capability).toBe("save_memory");
    await browser.approvals.respond.mutate({ approvalId: effect.approval.approval_id, answer: "deny" });
    expect(await events.next("job_ended")).toMatchObject({ status: "failed" });
  });

  it("lists jobs newest first with the workflow's current name and outputs", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { sessionId } = await browser.session.create.mutate({ mode: "auto" });
    const { runId } = await browser.run.start.mutate({ sessionId });
    const call = (module: string, exp: string, args: unknown[]) =>
      browser.run.invoke.mutate({ runId, module, export: exp, args }) as never;
    const graph = {
      nodes: [node("n", "constant.number", { value: 42 }), node("out", "workflow.output", { name: "answer" })],
      edges: [edge("n", "out", "value")],
    };
    const wf = answerValue<{ id: string }>(await call(WORKFLOWS, "create", [{ name: "Answer", graph }]));
    const first = answerValue<JobResult>(await call(WORKFLOWS, "run", [{ workflow_id: wf.id }]));
    const second = answerValue<JobResult>(await call(WORKFLOWS, "run", [{ graph }]));
    await call(WORKFLOWS, "update", [{ workflow_id: wf.id, name: "The answer" }]);

    const jobs = z.array(ListedJob).parse(fromWire((await browser.jobs.list.query({ limit: 10 })).jobs));
    expect(jobs.map((j) => j.job_id)).toEqual([second.job_id, first.job_id]);
    expect(jobs[1]).toMatchObject({
      workflow_id: wf.id,
      workflow_name: "The answer",
      status: "completed",
      outputs: { answer: 42 },
    });
    expect(jobs[1]?.duration_ms).toEqual(expect.any(Number));
    expect(jobs[0]).toMatchObject({ workflow_id: null, workflow_name: null, outputs: { answer: 42 } });
    // The capability's list carries the name too, but not the outputs (a model reads them with get).
    const listed = answerValue<{ jobs: Record<string, unknown>[] }>(await call(JOBS, "list", [{}]));
    expect(listed.jobs[1]).toMatchObject({ workflow_name: "The answer" });
    expect(listed.jobs[1]).not.toHaveProperty("outputs");

    // Page by page: the ones before a job, newest first, to the first one.
    const third = answerValue<JobResult>(await call(WORKFLOWS, "run", [{ graph }]));
    const page = async (input: { limit: number; before?: string }) =>
      z
        .array(ListedJob)
        .parse(fromWire((await browser.jobs.list.query(input)).jobs))
        .map((j) => j.job_id);
    expect(await page({ limit: 2 })).toEqual([third.job_id, second.job_id]);
    expect(await page({ limit: 2, before: second.job_id })).toEqual([first.job_id]);
    expect(await page({ limit: 2, before: first.job_id })).toEqual([]);

    const other = await server.app.credentials.addUser("someone");
    const res = await fetch(`${server.url}/trpc/jobs.list`, { headers: { authorization: `Bearer ${other.token}` } });
    const body = (await res.json()) as { result: { data: { jobs: unknown[] } } };
    expect(body.result.data.jobs).toEqual([]);
  });
});
