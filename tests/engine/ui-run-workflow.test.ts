/**
 * `ui_run_workflow` on both paths. Without an editor the server runs the stored workflow exactly as
 * `workflows.run` does, and with no workflow_id answers `capability_unavailable`. With an editor the
 * page authorises the call with the open graph in its args (the prompt lists what the graph uses), then
 * starts that very job with `run.startJob`, once per call, and reports with `run.complete`.
 */
import { describe, expect, it } from "vitest";
import { uiRunWorkflow } from "../../shared/capabilities/specs/ui.specs.ts";
import { watchEvents } from "../support/events.ts";
import { startTestServer, WORKFLOWS } from "../support/server.ts";
import { answerValue, edge, errorOf, JOBS, type JobResult, node, openRun } from "./support.ts";

const UI = "@nodetool-ai/sandbox-nodetool/ui";

const greeting = {
  nodes: [
    node("name", "workflow.input", { name: "name" }),
    node("hello", "text.template", { template: "Hello {{name}}" }),
    node("out", "workflow.output", { name: "greeting" }),
  ],
  edges: [edge("name", "hello", "name"), edge("hello", "out", "value")],
};

describe("ui_run_workflow", () => {
  it("without an editor runs the stored workflow like workflows.run, and needs a workflow_id", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const created = answerValue<{ id: string }>(await call(WORKFLOWS, "create", [{ name: "greet", graph: greeting }]));
    const job = answerValue<JobResult>(
      await call(UI, "runWorkflow", [{ workflow_id: created.id, inputs: { name: "Ada" } }]),
    );
    expect(job).toMatchObject({ status: "completed", outputs: { greeting: "Hello Ada" }, error: null });
    const listed = answerValue<{ jobs: { job_id: string }[] }>(await call(JOBS, "list", [{ workflow_id: created.id }]));
    expect(listed.jobs.map((j) => j.job_id)).toEqual([job.job_id]);

    const error = errorOf(await call(UI, "runWorkflow", [{ inputs: { name: "Ada" } }]));
    expect(error.code).toBe("capability_unavailable");
    expect(error.message).toMatch(/needs a connected editor.*workflow_id/);
    expect(errorOf(await call(UI, "runWorkflow", ["wf_missing"])).code).toBe("capability_failed");
  });

  it("names the non-read categories of the graph in its approval line when the graph is known", () => {
    const withEffects = {
      nodes: [...greeting.nodes, node("remember", "memory.save", { content: "x" })],
      edges: greeting.edges,
    };
    const line = (args: object) => uiRunWorkflow.userMessage?.({ inputs: {}, wait_ms: 0, ...args } as never);
    expect(line({ graph: withEffects })).toMatch(/4 nodes.*write \(save_memory, from memory\.save\)/);
    expect(line({})).toMatch(/^Run the workflow open in the editor\./);
    expect(line({ workflow_id: "wf_1" })).toMatch(/^Run workflow wf_1\./);
  });

  it("with an editor: authorise with the open graph, start that job once with run.startJob, wait, complete", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({ mode: "default" });
    using events = await watchEvents(browser, sessionId);
    const { runId } = await browser.run.start.mutate({ sessionId, editor: true });

    // The page adds the graph on screen to the guest's args before authorising.
    const pending = browser.run.authorize.mutate({
      runId,
      capability: "ui_run_workflow",
      args: { inputs: { name: "Grace" }, graph: greeting },
      callId: "r1",
    });
    const asked = await events.next("approval_requested");
    expect(asked.approval).toMatchObject({ capability: "ui_run_workflow", category: "execute" });
    expect(asked.approval.message).toMatch(/a workflow graph: 3 nodes\. It uses no write, execute or external/);
    await browser.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow" });
    expect(await pending).toMatchObject({ ok: true, value: { authorized: true, capability: "ui_run_workflow" } });

    const started = await browser.run.startJob.mutate({ runId, callId: "r1" });
    expect(started).toMatchObject({ ok: true, value: { job_id: expect.stringMatching(/^job_/) } });
    const jobId = (started as { value: { job_id: string } }).value.job_id;
    // Asking again answers the same job: a retried request never starts a second one.
    expect(await browser.run.startJob.mutate({ runId, callId: "r1" })).toMatchObject({
      ok: true,
      value: { job_id: jobId },
    });

    const waited = await browser.run.invoke.mutate({
      runId,
      module: JOBS,
      export: "wait_job",
      args: [{ job_id: jobId, wait_ms: 10_000 }],
    });
    expect(answerValue<JobResult>(waited as never)).toMatchObject({
      status: "completed",
      outputs: { greeting: "Hello Grace" },
    });
    expect(await events.next("job_ended")).toMatchObject({ job_id: jobId, status: "completed" });
    expect(await browser.run.complete.mutate({ runId, callId: "r1", ok: true })).toEqual({ recorded: true });

    // Only an authorised ui_run_workflow call starts a job.
    expect(await browser.run.startJob.mutate({ runId, callId: "r1" })).toMatchObject({
      ok: false,
      error: { code: "invalid_call" },
    });
    expect(
      await browser.run.authorize.mutate({ runId, capability: "ui_get_graph", args: {}, callId: "r2" }),
    ).toMatchObject({ ok: true });
    expect(await browser.run.startJob.mutate({ runId, callId: "r2" })).toMatchObject({
      ok: false,
      error: { code: "invalid_call" },
    });

    // A graph that cannot run is refused when the job starts, with the problems named.
    const broken = browser.run.authorize.mutate({
      runId,
      capability: "ui_run_workflow",
      args: { graph: { nodes: [node("t", "text.template", {})], edges: [] } },
      callId: "r3",
    });
    const askedAgain = await events.next("approval_requested");
    await browser.approvals.respond.mutate({ approvalId: askedAgain.approval.approval_id, answer: "allow" });
    expect(await broken).toMatchObject({ ok: true });
    expect(await browser.run.startJob.mutate({ runId, callId: "r3" })).toMatchObject({
      ok: false,
      error: { code: "capability_failed", message: expect.stringMatching(/cannot run/) },
    });

    await server.app.audit.flush();
    const rows = await server.app.store
      .sql("SELECT capability, decision, outcome FROM audit WHERE run_id = ? AND capability = ?")
      .all(runId, "ui_run_workflow");
    expect(rows).toEqual([{ capability: "ui_run_workflow", decision: "ask", outcome: "ok" }]);
  });
});
