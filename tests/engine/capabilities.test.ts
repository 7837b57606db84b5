/**
 * The `workflows` run capabilities, `jobs` and `nodes` through `invoke`, each with its category's gate
 * behaviour (plan blocks non-reads, default asks, auto runs, reads always run), and effects inside a
 * job passing the starting session's gate: one approval of run_workflow never smuggles a write.
 */

import { describe, expect, it } from "vitest";
import { openLocalRun } from "../../server-bridge/runs/local.ts";
import { findSpec } from "../../shared/capabilities/table.ts";
import type { Mode } from "../../shared/capabilities/types.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../../shared/gate/approvals.ts";
import { ScriptedApprover } from "../support/approver.ts";
import { watchEvents } from "../support/events.ts";
import { auditedDecisions, startTestServer, type TestServer } from "../support/server.ts";
import { edge, type JobResult, node } from "./support.ts";

const SAVE_GRAPH = {
  nodes: [node("text", "constant.string", { value: "remember the milk" }), node("save", "memory.save")],
  edges: [edge("text", "save", "content")],
};
const PURE_GRAPH = {
  nodes: [node("n", "constant.number", { value: 2 }), node("sq", "math.power", { b: 2 })],
  edges: [edge("n", "sq", "a")],
};

/** A run in a fresh session of `mode`, with an approver that answers `allow` and records every ask. */
async function gated(server: TestServer, mode: Mode, answer: (r: ApprovalRequest) => ApprovalAnswer = () => "allow") {
  const approver = new ScriptedApprover(answer);
  const local = await openLocalRun(server.app, { mode, approver });
  return { ...local, run: local.live.run, requests: approver.asked };
}

const memories = async (server: TestServer) =>
  ((await server.app.store.sql("SELECT count(*) AS n FROM memories").get()) as { n: number }).n;
const jobCount = async (server: TestServer) =>
  ((await server.app.store.sql("SELECT count(*) AS n FROM jobs").get()) as { n: number }).n;

describe("each capability through invoke, with its category's gate behaviour", () => {
  it("declares the categories the issue asks for", () => {
    const categories = Object.fromEntries(
      [
        "run_workflow",
        "start_workflow",
        "list_jobs",
        "get_job",
        "cancel_job",
        "wait_job",
        "list_nodes",
        "search_nodes",
        "get_node_info",
        "run_node",
      ].map((name) => [name, findSpec(name)?.category]),
    );
    expect(categories).toEqual({
      run_workflow: "execute",
      start_workflow: "execute",
      list_jobs: "read",
      get_job: "read",
      cancel_job: "write",
      wait_job: "read",
      list_nodes: "read",
      search_nodes: "read",
      get_node_info: "read",
      run_node: "execute",
    });
  });

  it("reads run in every mode without asking", async () => {
    await using server = await startTestServer();
    const seed = await gated(server, "auto");
    const job = await seed.run.invoke("run_workflow", { graph: PURE_GRAPH });
    const jobId = (job as { value: JobResult }).value.job_id;
    for (const mode of ["plan", "default", "auto"] as const) {
      const { run, requests } = await gated(server, mode, () => "deny");
      expect(await run.invoke("list_nodes", { family: "math" })).toMatchObject({ ok: true, value: { count: 9 } });
      const found = await run.invoke("search_nodes", { query: "template" });
      expect((found as { value: { nodes: { id: string }[] } }).value.nodes.map((n) => n.id)).toContain("text.template");
      expect(await run.invoke("get_node_info", { node_type: "text.split" })).toMatchObject({
        ok: true,
        value: {
          id: "text.split",
          family: "text",
          inputs: [{ name: "text", type: "string", required: true }, {}, {}],
          outputs: [{ name: "output", type: "list" }],
        },
      });
      expect(await run.invoke("get_node_info", { node_type: "text.splt" })).toMatchObject({
        ok: false,
        error: { code: "capability_failed", message: expect.stringContaining('Did you mean "text.split"') },
      });
      expect(await run.invoke("list_jobs", {})).toMatchObject({ ok: true, value: { count: 1 } });
      expect(await run.invoke("get_job", { job_id: jobId })).toMatchObject({
        ok: true,
        value: { status: "completed", outputs: { sq: { output: 4 } } },
      });
      expect(await run.invoke("wait_job", { job_id: jobId, wait_ms: 0 })).toMatchObject({
        ok: true,
        value: { status: "completed" },
      });
      expect(requests).toEqual([]);
    }
  });

  it.each([
    ["run_workflow", { graph: PURE_GRAPH }],
    ["start_workflow", { graph: PURE_GRAPH }],
    ["run_node", { node_type: "math.add", inputs: { a: 1, b: 2 } }],
  ])("%s (execute): plan blocks before anything runs, default asks, auto runs", async (name, args) => {
    await using server = await startTestServer();
    const plan = await gated(server, "plan");
    expect(await plan.run.invoke(name, args)).toMatchObject({ ok: false, error: { code: "blocked_in_plan_mode" } });
    expect(plan.requests).toEqual([]);
    expect(await jobCount(server)).toBe(0);

    const denied = await gated(server, "default", () => "deny");
    expect(await denied.run.invoke(name, args)).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(denied.requests.map((r) => [r.capability, r.category])).toEqual([[name, "execute"]]);
    expect(await jobCount(server)).toBe(0);

    const allowed = await gated(server, "default");
    expect(await allowed.run.invoke(name, args)).toMatchObject({ ok: true });
    expect(allowed.requests).toHaveLength(1);

    const auto = await gated(server, "auto", () => "deny");
    const result = await auto.run.invoke(name, args);
    expect(result).toMatchObject({ ok: true });
    expect(auto.requests).toEqual([]);
    if (name === "run_node") expect(result).toMatchObject({ value: { node_type: "math.add", outputs: { output: 3 } } });
    else expect(await jobCount(server)).toBe(2);
  });

  it("cancel_job (write): plan blocks, default asks, auto runs", async () => {
    await using server = await startTestServer();
    const slow = { nodes: [node("wait", "control.delay", { ms: 60_000 })], edges: [] };
    const owner = await gated(server, "auto");
    const start = async () =>
      ((await owner.run.invoke("start_workflow", { graph: slow })) as { value: { job_id: string } }).value.job_id;
    const job = await start();
    const plan = await gated(server, "plan");
    expect(await plan.run.invoke("cancel_job", { job_id: job })).toMatchObject({
      ok: false,
      error: { code: "blocked_in_plan_mode" },
    });
    const denied = await gated(server, "default", () => "deny");
    expect(await denied.run.invoke("cancel_job", { job_id: job })).toMatchObject({
      ok: false,
      error: { code: "permission_denied" },
    });
    expect(denied.requests.map((r) => r.message)).toEqual([`Cancel job ${job}`]);
    expect(await plan.run.invoke("get_job", { job_id: job })).toMatchObject({ value: { status: "running" } });
    const auto = await gated(server, "auto");
    expect(await auto.run.invoke("cancel_job", { job_id: job })).toMatchObject({
      ok: true,
      value: { status: "cancelled" },
    });
  });

  it("the approval prompt lists the non-read categories the graph will use", async () => {
    await using server = await startTestServer();
    const { run, requests } = await gated(server, "default", () => "deny");
    await run.invoke("run_workflow", { graph: SAVE_GRAPH });
    await run.invoke("start_workflow", { graph: PURE_GRAPH });
    await run.invoke("run_workflow", { workflow_id: "wf_x" });
    await run.invoke("run_node", { node_type: "memory.save", inputs: { content: "x" } });
    expect(requests.map((r) => r.message)).toEqual([
      "Run a workflow graph: 2 nodes. It will use: write (save_memory, from memory.save); each of these still asks on its own in default mode.",
      "Start a workflow graph: 2 nodes. It uses no write, execute or external capabilities.",
      "Run workflow wf_x. Any write, execute or external effect of its nodes passes the gate on its own when it runs.",
      "Run node memory.save on its own. It will use: write (save_memory, from memory.save); each of these still asks on its own in default mode.",
    ]);
  });
});

describe("effects inside a job pass the starting session's gate", () => {
  it("default: approving run_workflow still asks for the node's write; a denial fails the job naming the node", async () => {
    await using server = await startTestServer();
    const { run, requests, live } = await gated(server, "default", (r) =>
      r.capability === "save_memory" ? "deny" : "allow",
    );
    const result = await run.invoke("run_workflow", { graph: SAVE_GRAPH });
    const job = (result as { value: JobResult }).value;
    expect(job.status).toBe("failed");
    expect(job.error).toMatchObject({ code: "permission_denied", node_id: "save", node_type: "memory.save" });
    expect(requests.map((r) => r.capability)).toEqual(["run_workflow", "save_memory"]);
    // The effect was asked on the job's own run, not on the run that started it.
    expect(requests[1]?.run_id).not.toBe(live.id);
    expect(requests[1]?.args).toEqual({ content: "remember the milk", tags: [] });
    expect(await memories(server)).toBe(0);
  });

  it("default: the session's allow-set covers the effect; auto runs it; plan never starts the job", async () => {
    await using server = await startTestServer();
    const session = await gated(server, "default", (r) =>
      r.capability === "save_memory" ? "allow_for_session" : "allow",
    );
    expect(
      ((await session.run.invoke("run_workflow", { graph: SAVE_GRAPH })) as { value: JobResult }).value.status,
    ).toBe("completed");
    expect(
      ((await session.run.invoke("run_workflow", { graph: SAVE_GRAPH })) as { value: JobResult }).value.status,
    ).toBe("completed");
    // save_memory asked once, then the session's allow-set let it through; run_workflow asked both times.
    expect(session.requests.map((r) => r.capability)).toEqual(["run_workflow", "save_memory", "run_workflow"]);
    expect(await server.app.sessions.allowed(session.sessionId)).toEqual(["save_memory"]);
    expect(await memories(server)).toBe(2);

    const auto = await gated(server, "auto", () => "deny");
    const job = ((await auto.run.invoke("run_workflow", { graph: SAVE_GRAPH })) as { value: JobResult }).value;
    expect(job).toMatchObject({ status: "completed", outputs: { save: { output: { content: "remember the milk" } } } });
    expect(auto.requests).toEqual([]);
    expect(await memories(server)).toBe(3);
    const search = { nodes: [node("q", "memory.search", { query: "milk" })], edges: [] };
    const found = ((await auto.run.invoke("run_workflow", { graph: search })) as { value: JobResult }).value;
    expect(found.outputs).toMatchObject({ q: { output: [{}, {}, {}] } });
  });

  it("a headless run (no user to ask) reads node types but runs neither a workflow nor a node", async () => {
    await using server = await startTestServer();
    const local = await openLocalRun(server.app, {});
    for (const [name, args] of [
      ["run_node", { node_type: "memory.save", inputs: { content: "x" } }],
      ["run_workflow", { graph: SAVE_GRAPH }],
    ] as const) {
      const denied = await local.live.run.invoke(name, args);
      expect(denied).toMatchObject({
        ok: false,
        error: { code: "permission_denied", message: expect.stringContaining("no user to ask") },
      });
    }
    expect(await jobCount(server)).toBe(0);
    expect(await local.live.run.invoke("get_node_info", { node_type: "memory.save" })).toMatchObject({ ok: true });
    expect(await memories(server)).toBe(0);
  });

  it("run_node with an effect asks for run_node, then for the effect, on the calling run", async () => {
    await using server = await startTestServer();
    const { run, requests, live } = await gated(server, "default");
    const result = await run.invoke("run_node", {
      node_type: "memory.save",
      inputs: { content: "via run_node", tags: ["t"] },
    });
    expect(result).toMatchObject({
      ok: true,
      value: { outputs: { output: { content: "via run_node", tags: ["t"] } } },
    });
    expect(requests.map((r) => [r.capability, r.run_id])).toEqual([
      ["run_node", live.id],
      ["save_memory", live.id],
    ]);
  });
});

describe("gate parity: run_workflow (execute) through the server as through the in-process ladder", () => {
  it("plan blocks, default asks on the event stream and the browser's answer decides, auto runs", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({ mode: "plan" });
    using events = await watchEvents(browser, sessionId);
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const call = (callId?: string) =>
      server.script.run.invoke.mutate({
        runId,
        module: "@nodetool-ai/sandbox-nodetool/workflows",
        export: "run",
        args: [{ graph: PURE_GRAPH }],
        ...(callId ? { callId } : {}),
      });

    expect(await call()).toMatchObject({ ok: false, error: { code: "blocked_in_plan_mode" } });
    await browser.session.setMode.mutate({ sessionId, mode: "default" });

    const denied = call("c1");
    const ask1 = await events.next("approval_requested");
    expect(ask1.approval).toMatchObject({ capability: "run_workflow", category: "execute" });
    expect(ask1.approval.message).toContain("It uses no write, execute or external capabilities.");
    await browser.approvals.respond.mutate({ approvalId: ask1.approval.approval_id, answer: "deny" });
    expect(await denied).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(await jobCount(server)).toBe(0);

    const allowed = call("c2");
    const ask2 = await events.next("approval_requested");
    await browser.approvals.respond.mutate({ approvalId: ask2.approval.approval_id, answer: "allow" });
    expect(await allowed).toMatchObject({ ok: true, value: { status: "completed", outputs: { sq: { output: 4 } } } });

    await browser.session.setMode.mutate({ sessionId, mode: "auto" });
    expect(await call()).toMatchObject({ ok: true, value: { status: "completed" } });
    expect(events.events.filter((e) => e.type === "approval_requested")).toHaveLength(2);

    expect(await auditedDecisions(server, runId, "run_workflow")).toEqual([
      { decision: "block", outcome: "blocked_in_plan_mode" },
      { decision: "ask", outcome: "permission_denied" },
      { decision: "ask", outcome: "ok" },
      { decision: "run", outcome: "ok" },
    ]);
  });
});
