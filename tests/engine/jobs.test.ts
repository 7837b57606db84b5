/**
 * The engine on real graphs through a real server and SQLite: values along edges, branches running
 * concurrently (bounded), a failing branch named in the job's error, cancellation mid-run, progress on
 * the session's event stream, and the job record in the store.
 */
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../shared/protocol/server.ts";
import { watchEvents } from "../support/events.ts";
import { startTestServer, WORKFLOWS } from "../support/server.ts";
import { answerValue, edge, errorOf, JOBS, type JobResult, node, nodeStatus, openRun } from "./support.ts";

type Progress = Extract<SessionEvent, { type: "job_progress" }>;

describe("jobs on real graphs", () => {
  it("runs branches and joins them; progress reaches 100 on the event stream; the row records it all", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { call, sessionId } = await openRun(server, "auto");
    using events = await watchEvents(browser, sessionId);
    const graph = {
      nodes: [
        node("price", "workflow.input", { name: "price" }),
        node("qty", "constant.number", { value: 3 }),
        node("total", "math.expression", { expression: "price * qty" }),
        node("label", "text.template", { template: "{{qty}} items" }),
        node("join", "text.template", { template: "{{label}} cost {{total}}" }),
        node("out", "workflow.output", { name: "summary" }),
        node("out2", "workflow.output", { name: "total" }),
      ],
      edges: [
        edge("price", "total", "price"),
        edge("qty", "total", "qty"),
        edge("qty", "label", "qty"),
        edge("label", "join", "label"),
        edge("total", "join", "total"),
        edge("join", "out", "value"),
        edge("total", "out2", "value"),
      ],
    };
    const job = answerValue<JobResult>(await call(WORKFLOWS, "run", [{ graph, inputs: { price: 2.5 } }]));
    expect(job).toMatchObject({
      status: "completed",
      outputs: { summary: "3 items cost 7.5", total: 7.5 },
      error: null,
      progress: { done: 7, total: 7, percent: 100 },
    });
    expect(Object.values(nodeStatus(job))).toEqual(Array(7).fill("completed"));

    const ended = await events.next("job_ended");
    expect(ended).toEqual({ type: "job_ended", job_id: job.job_id, status: "completed" });
    const progress = events.events.filter((e): e is Progress => e.type === "job_progress" && e.job_id === job.job_id);
    expect(progress[0]).toMatchObject({ status: "queued", percent: 0 });
    expect(
      progress
        .filter((e) => e.node_status === "completed")
        .map((e) => e.node_id)
        .sort(),
    ).toEqual(graph.nodes.map((n) => n.id).sort());
    expect(progress.at(-1)).toMatchObject({ node_status: "completed", percent: 100 });
    // "join" started only after both of its branches finished.
    const at = (id: string, status: string) => progress.findIndex((e) => e.node_id === id && e.node_status === status);
    expect(at("join", "running")).toBeGreaterThan(at("label", "completed"));
    expect(at("join", "running")).toBeGreaterThan(at("total", "completed"));

    const row = await server.app.store
      .sql("SELECT status, outputs, done, total, lease_owner FROM jobs WHERE id = ?")
      .get(job.job_id);
    expect(row).toEqual({
      status: "completed",
      outputs: JSON.stringify(job.outputs),
      done: 7,
      total: 7,
      lease_owner: null,
    });
    const detail = answerValue<JobResult>(
      await call(JOBS, "get", [{ job_id: job.job_id, include_node_outputs: true }]),
    );
    expect(detail.nodes?.find((n) => n.id === "label")?.outputs).toEqual({ output: "3 items" });
  });

  it("runs independent branches concurrently, never more than the bound (4) at once", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { call, sessionId } = await openRun(server, "auto");
    using events = await watchEvents(browser, sessionId);
    const delays = Array.from({ length: 10 }, (_, i) => node(`d${i}`, "control.delay", { ms: 40, value: i }));
    const job = answerValue<JobResult>(await call(WORKFLOWS, "run", [{ graph: { nodes: delays, edges: [] } }]));
    expect(job.status).toBe("completed");
    expect(job.outputs).toEqual(Object.fromEntries(delays.map((d, i) => [d.id, { output: i }])));
    await events.next("job_ended");
    let running = 0;
    let most = 0;
    for (const e of events.events) {
      if (e.type !== "job_progress" || !e.node_id) continue;
      running += e.node_status === "running" ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBe(4);
  });

  it("stops at a failing branch, names its node, cancels the other branch and skips what depends on them", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const graph = {
      nodes: [
        node("slow", "control.delay", { ms: 60_000, value: 1 }),
        node("after", "math.add", { b: 1 }),
        node("zero", "constant.number", { value: 0 }),
        node("div", "math.divide", { a: 1 }),
        node("after_div", "math.add", { b: 1 }),
      ],
      edges: [edge("slow", "after", "a"), edge("zero", "div", "b"), edge("div", "after_div", "a")],
    };
    const job = answerValue<JobResult>(await call(WORKFLOWS, "run", [{ graph }]));
    expect(job.status).toBe("failed");
    expect(job.error).toMatchObject({ code: "capability_failed", node_id: "div", node_type: "math.divide" });
    expect(job.error?.message).toMatch(/^Node "div" \(math.divide\) failed: .*division by zero/);
    expect(nodeStatus(job)).toEqual({
      slow: "cancelled",
      after: "skipped",
      zero: "completed",
      div: "failed",
      after_div: "skipped",
    });
    expect(job.outputs).toBeNull();
  });

  it("cancels a running job at once: the waiting node stops, the rest is skipped, the job's run ends", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { call, sessionId } = await openRun(server, "auto");
    using events = await watchEvents(browser, sessionId);
    const graph = {
      nodes: [
        node("first", "constant.string", { value: "x" }),
        node("wait", "control.delay", { ms: 60_000 }),
        node("after", "text.length"),
      ],
      edges: [edge("first", "wait", "value"), edge("wait", "after", "text")],
    };
    const started = answerValue<{ job_id: string; status: string }>(await call(WORKFLOWS, "start", [{ graph }]));
    for (;;) {
      const e = await events.next("job_progress");
      if (e.node_id === "wait" && e.node_status === "running") break;
    }
    const cancelled = answerValue<JobResult>(await call(JOBS, "cancel", [started.job_id]));
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.error).toMatchObject({ code: "cancelled" });
    expect(nodeStatus(cancelled)).toEqual({ first: "completed", wait: "cancelled", after: "skipped" });
    expect(await events.next("job_ended")).toMatchObject({ job_id: started.job_id, status: "cancelled" });
    const runRow = await server.app.store
      .sql("SELECT r.status FROM runs r JOIN jobs j ON j.run_id = r.id WHERE j.id = ?")
      .get(started.job_id);
    expect(runRow).toEqual({ status: "cancelled" });
    // Cancelling a settled job changes nothing.
    expect(answerValue<JobResult>(await call(JOBS, "cancel", [started.job_id])).status).toBe("cancelled");
    expect(answerValue<JobResult>(await call(JOBS, "wait", [started.job_id])).status).toBe("cancelled");
  });

  it("holds a live job under this process's lease, renewed with its runs and settled without one", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const graph = { nodes: [node("wait", "control.delay", { ms: 60_000 })], edges: [] };
    const { job_id } = answerValue<{ job_id: string }>(await call(WORKFLOWS, "start", [{ graph }]));
    const lease = async () =>
      (await server.app.store.sql("SELECT lease_owner, lease_expires FROM jobs WHERE id = ?").get(job_id)) as {
        lease_owner: string | null;
        lease_expires: number | null;
      };
    const first = await lease();
    expect(first.lease_owner).toMatch(/^proc_/);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await server.app.runs.renewLeases();
    expect((await lease()).lease_expires).toBeGreaterThan(first.lease_expires ?? Number.POSITIVE_INFINITY);
    await call(JOBS, "cancel", [job_id]);
    expect(await lease()).toEqual({ lease_owner: null, lease_expires: null });
  });

  it("stops a job when another process asks through the row (cancel_requested)", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const graph = { nodes: [node("wait", "control.delay", { ms: 60_000 })], edges: [] };
    const { job_id } = answerValue<{ job_id: string }>(await call(WORKFLOWS, "start", [{ graph }]));
    await server.app.store.sql("UPDATE jobs SET cancel_requested = 1 WHERE id = ?").run(job_id);
    const job = answerValue<JobResult>(await call(JOBS, "wait", [{ job_id, wait_ms: 55_000 }]));
    expect(job).toMatchObject({ status: "cancelled", error: { code: "cancelled" } });
  });

  it("runs a stored workflow with inputs; a short wait returns it running with a hint, wait_job gets the end", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const graph = {
      nodes: [
        node("who", "workflow.input", { name: "who", default: "nobody" }),
        node("pause", "control.delay", { ms: 200 }),
        node("hello", "text.template", { template: "Hello {{who}}" }),
        node("out", "workflow.output", { name: "greeting" }),
      ],
      edges: [edge("who", "pause", "value"), edge("pause", "hello", "who"), edge("hello", "out", "value")],
    };
    const wf = answerValue<{ id: string }>(await call(WORKFLOWS, "create", [{ name: "Greeter", graph }]));
    const early = answerValue<JobResult>(await call(WORKFLOWS, "run", [wf.id, { inputs: { who: "Ada" }, wait_ms: 0 }]));
    expect(early.status).toBe("running");
    expect(early.hint).toContain(`jobs.wait("${early.job_id}")`);
    const done = answerValue<JobResult>(await call(JOBS, "wait", [early.job_id]));
    expect(done).toMatchObject({ status: "completed", outputs: { greeting: "Hello Ada" }, workflow_id: wf.id });
    const byDefault = answerValue<JobResult>(await call(WORKFLOWS, "run", [wf.id]));
    expect(byDefault.outputs).toEqual({ greeting: "Hello nobody" });
    const listed = answerValue<{ jobs: JobResult[]; count: number }>(
      await call(JOBS, "list", [{ workflow_id: wf.id }]),
    );
    expect(listed.jobs.map((j) => j.job_id)).toEqual([byDefault.job_id, early.job_id]);
    expect(answerValue<{ count: number }>(await call(JOBS, "list", [{ status: "failed" }])).count).toBe(0);
  });

  it("settles a running job as failed when its server shuts down, saying so", async () => {
    const first = await startTestServer();
    const { call } = await openRun(first, "auto");
    const graph = { nodes: [node("wait", "control.delay", { ms: 60_000 })], edges: [] };
    const { job_id } = answerValue<{ job_id: string }>(await call(WORKFLOWS, "start", [{ graph }]));
    await using server = await first.restart();
    const { call: again } = await openRun(server, "auto");
    const job = answerValue<JobResult>(await again(JOBS, "get", [job_id]));
    expect(job).toMatchObject({
      status: "failed",
      error: { code: "run_ended", message: expect.stringMatching(/server stopped/) },
    });
    expect(nodeStatus(job)).toEqual({ wait: "cancelled" });
  });

  it("refuses a graph with problems before anything runs, listing each problem", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const graph = { nodes: [node("a", "text.lenght"), node("b", "math.add", { a: "1" })], edges: [] };
    const error = errorOf(await call(WORKFLOWS, "run", [{ graph }]));
    expect(error.code).toBe("capability_failed");
    expect(error.message).toMatch(/^The workflow cannot run; fix its graph first \(2 problems\)/);
    expect(error.message).toContain('Add: "a" expects a number, got string.');
    expect(error.issues).toEqual([
      expect.stringContaining('node "a" has unknown type "text.lenght". Did you mean "text.length"'),
      'nodes.b.data.a: Add: "a" expects a number, got string.',
    ]);
    expect(await server.app.store.sql("SELECT count(*) AS n FROM jobs").get()).toEqual({ n: 0 });
    expect(errorOf(await call(JOBS, "get", ["job_nope"]))).toMatchObject({ code: "capability_failed" });
  });

  it("leaves notes out of a run (they never run, nor count), and refuses an edge to one", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const graph = {
      nodes: [
        node("why", "canvas.note", { text: "Adds two numbers." }),
        node("sum", "math.add", { a: 2, b: 40 }),
        node("out", "workflow.output", { name: "sum" }),
      ],
      edges: [edge("sum", "out", "value")],
    };
    const job = answerValue<JobResult>(await call(WORKFLOWS, "run", [{ graph }]));
    expect(job).toMatchObject({ status: "completed", outputs: { sum: 42 } });
    const view = answerValue<{ nodes: { id: string }[]; progress: { total: number } }>(
      await call(JOBS, "get", [job.job_id]),
    );
    expect(view.nodes.map((n) => n.id)).toEqual(["sum", "out"]);
    expect(view.progress.total).toBe(2);
    const wired = {
      ...graph,
      edges: [
        ...graph.edges,
        { id: "bad", source: "why", sourceHandle: "output", target: "out", targetHandle: "value" },
      ],
    };
    const error = errorOf(await call(WORKFLOWS, "run", [{ graph: wired }]));
    expect(error.issues).toEqual(['edge "bad": why is a note, which has no connections; remove the edge.']);
  });

  it("keeps jobs per user: another user's job is not found", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const { job_id } = answerValue<{ job_id: string }>(
      await call(WORKFLOWS, "start", [{ graph: { nodes: [node("c", "constant.number", { value: 1 })], edges: [] } }]),
    );
    const other = await server.app.credentials.addUser("someone");
    const session = await server.app.sessions.create(other.userId, { mode: "auto" });
    const live = await server.app.runs.start(other.userId, session.sessionId);
    for (const name of ["get_job", "cancel_job", "wait_job"]) {
      const result = await live.run.invoke(name, { job_id });
      expect(result).toMatchObject({ ok: false, error: { code: "capability_failed" } });
    }
    expect(await live.run.invoke("list_jobs", {})).toMatchObject({ ok: true, value: { count: 0 } });
  });

  it("lists jobs a page at a time: before a job's id, the ones older than it, and none before another user's", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const started: string[] = [];
    for (let i = 0; i < 5; i++) {
      const graph = { nodes: [node("c", "constant.number", { value: i })], edges: [] };
      started.push(answerValue<{ job_id: string }>(await call(WORKFLOWS, "run", [{ graph }])).job_id);
    }
    const page = async (args: Record<string, unknown>) =>
      answerValue<{ jobs: { job_id: string }[] }>(await call(JOBS, "list", [args])).jobs.map((job) => job.job_id);
    const newest = [...started].reverse();
    const first = await page({ limit: 2 });
    expect(first).toEqual(newest.slice(0, 2));
    const second = await page({ limit: 2, before: first.at(-1) });
    expect(second).toEqual(newest.slice(2, 4));
    expect(await page({ limit: 2, before: second.at(-1) })).toEqual(newest.slice(4));
    expect(await page({ limit: 2, before: newest.at(-1) })).toEqual([]);
    // Another user's job id (or one that does not exist) pages nothing of this user's.
    expect(await page({ before: "job_nope" })).toEqual([]);
  });
});
