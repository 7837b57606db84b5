/**
 * Two servers on one Postgres, live (issue 19): what one server's runs do shows on the other's pages
 * as it happens, an answer or a run end given on one reaches the run live on the other through
 * LISTEN/NOTIFY (the waiters' poll is an hour here, so only a notification can have woken them), a
 * dropped listener catches up from the store, and a forged notification changes nothing. Postgres
 * only: on SQLite one server process serves a data directory.
 */
import { describe, expect, it } from "vitest";
import { channelOf } from "../../server-bridge/store/postgres/signals.ts";
import type { PostgresStore } from "../../server-bridge/store/postgres.ts";
import type { SessionEvent } from "../../shared/protocol/server.ts";
import { node } from "../engine/support.ts";
import { withAdmin } from "../support/database.ts";
import { watchEvents } from "../support/events.ts";
import { startTestServer, type TestServer, WORKFLOWS } from "../support/server.ts";

const HOUR = 3_600_000;

/** Two servers on one store whose waiters never poll; A holds a script's call until it settles. */
async function twoServers(log: (message: string) => void = () => {}) {
  const a = await startTestServer({ holdMs: HOUR, approvalPollMs: HOUR }, undefined, (_level, message) => log(message));
  const b = await startTestServer({ approvalPollMs: HOUR }, a.dataDir);
  const dispose = async () => {
    await b.close();
    await a[Symbol.asyncDispose]();
  };
  return { a, b, [Symbol.asyncDispose]: dispose };
}

const signalsOf = (server: TestServer) => (server.app.store as PostgresStore).signals;
const count = (events: SessionEvent[], type: SessionEvent["type"]) => events.filter((e) => e.type === type).length;
const create = (runId: string, name: string, callId: string) => ({
  runId,
  module: WORKFLOWS,
  export: "create",
  args: [name],
  callId,
});

describe.runIf(process.env.DATABASE_URL)("two servers on one Postgres, live", () => {
  it("shows A's approval on B's page as it is asked; B's answer wakes A's call; both pages see it settle once", async () => {
    await using servers = await twoServers();
    const { a, b } = servers;
    const { sessionId } = await a.script.session.create.mutate({});
    using onA = await watchEvents(await a.browser(), sessionId);
    const browserB = await b.browser();
    using onB = await watchEvents(browserB, sessionId);
    // B's page on its own session: a script's approval reaches the user's signed-in pages on any server.
    const pageB = await browserB.session.create.mutate({});
    using onPageB = await watchEvents(browserB, pageB.sessionId);
    const { runId } = await a.script.run.start.mutate({ sessionId });

    const call = a.script.run.invoke.mutate(create(runId, "asked on A", "c1"));
    // B's page was subscribed before anything was pending: this is the live event, not a replay.
    const asked = await onB.next("approval_requested");
    expect(asked.approval).toMatchObject({ run_id: runId, capability: "create_workflow" });
    await browserB.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow" });
    expect(await call).toMatchObject({ ok: true, value: { name: "asked on A" } });
    const settled = { type: "approval_settled", approval_id: asked.approval.approval_id, status: "allow" };
    expect(await onA.next("approval_settled")).toEqual(settled);
    expect(await onB.next("approval_settled")).toEqual(settled);
    expect((await onPageB.next("approval_requested")).approval).toMatchObject({ run_id: runId, from: "script" });
    expect(await onPageB.next("approval_settled")).toEqual(settled);

    await a.script.run.end.mutate({ runId });
    expect(await onB.next("run_ended")).toEqual({ type: "run_ended", run_id: runId, reason: "ended" });
    expect(await onA.next("run_ended")).toEqual({ type: "run_ended", run_id: runId, reason: "ended" });
    // Each server published each of the row's states once (its own echo and the other's are not repeated).
    for (const events of [onA.events, onB.events]) {
      expect([count(events, "approval_requested"), count(events, "approval_settled")]).toEqual([1, 1]);
      expect(count(events, "run_ended")).toBe(1);
    }
  });

  it("ends from B a run A holds live: A's waiting call ends as run_ended, and A serves the run no more", async () => {
    await using servers = await twoServers();
    const { a, b } = servers;
    const { sessionId } = await a.script.session.create.mutate({});
    using onA = await watchEvents(await a.browser(), sessionId);
    using onB = await watchEvents(await b.browser(), sessionId);
    const { runId } = await a.script.run.start.mutate({ sessionId });
    const call = a.script.run.invoke.mutate(create(runId, "never written", "c1"));
    const asked = await onB.next("approval_requested");

    // The person presses stop on B's page.
    expect(await b.script.run.cancel.mutate({ runId })).toEqual({ runId, status: "cancelled" });
    expect(await call).toMatchObject({ ok: false, error: { code: "run_ended" } });
    expect(await onA.next("run_ended")).toEqual({ type: "run_ended", run_id: runId, reason: "cancelled" });
    expect(await onB.next("run_ended")).toEqual({ type: "run_ended", run_id: runId, reason: "cancelled" });
    expect(await onA.next("approval_settled")).toMatchObject({
      approval_id: asked.approval.approval_id,
      status: "cancelled",
    });
    expect(await a.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "list", args: [] })).toMatchObject({
      ok: false,
      error: { code: "run_ended" },
    });
    expect(await a.app.store.sql("SELECT count(*) AS n FROM workflows").get()).toEqual({ n: 0 });
  });

  it("shows on B's page the progress and the end of a job A runs", async () => {
    await using servers = await twoServers();
    const { a, b } = servers;
    const { sessionId } = await a.script.session.create.mutate({ mode: "auto" });
    using onB = await watchEvents(await b.browser(), sessionId);
    const { runId } = await a.script.run.start.mutate({ sessionId });
    const graph = {
      nodes: [node("first", "constant.number", { value: 1 }), node("wait", "control.delay", { ms: 2000 })],
      edges: [{ id: "e", source: "first", sourceHandle: "output", target: "wait", targetHandle: "value" }],
    };
    const started = await a.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "start", args: [{ graph }] });
    const jobId = (started as { ok: true; value: { job_id: string } }).value.job_id;

    expect(await onB.next("job_progress")).toMatchObject({ job_id: jobId });
    expect(await onB.next("job_ended", 20_000)).toEqual({ type: "job_ended", job_id: jobId, status: "completed" });
    const progress = onB.events.filter((e) => e.type === "job_progress");
    // Read from A's row writes (every flush): the first node done, the delay seen running.
    expect(progress).toContainEqual(expect.objectContaining({ node_id: "first", node_status: "completed" }));
    expect(progress).toContainEqual(expect.objectContaining({ node_id: "wait", node_status: "running" }));
    expect(progress.map((e) => e.job_id)).toEqual(progress.map(() => jobId));

    // The job's own run ended with it, then the run that started it.
    await a.script.run.end.mutate({ runId });
    await expect
      .poll(() => onB.events.filter((e) => e.type === "run_ended").map((e) => e.run_id), { timeout: 10_000 })
      .toContain(runId);
    expect(count(onB.events, "run_ended")).toBe(2);
  });

  it("after its listener connection is killed, A reconnects and learns from the store of an answer given meanwhile", async () => {
    const warnings: string[] = [];
    await using servers = await twoServers((message) => warnings.push(message));
    const { a, b } = servers;
    const { sessionId } = await a.script.session.create.mutate({});
    const browserB = await b.browser();
    using onB = await watchEvents(browserB, sessionId);
    const { runId } = await a.script.run.start.mutate({ sessionId });
    const call = a.script.run.invoke.mutate(create(runId, "answered while A was deaf", "c1"));
    const asked = await onB.next("approval_requested");

    const pid = signalsOf(a).listenerPid();
    expect(pid).toBeTypeOf("number");
    await withAdmin((client) => client.query("SELECT pg_terminate_backend($1)", [pid]));
    await expect.poll(() => signalsOf(a).listenerPid(), { timeout: 10_000 }).toBeUndefined();
    await browserB.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow" });
    // The notification of that answer went out while A was not listening.
    expect(signalsOf(a).listenerPid()).toBeUndefined();

    expect(await call).toMatchObject({ ok: true, value: { name: "answered while A was deaf" } });
    expect(signalsOf(a).listenerPid()).toBeTypeOf("number");
    expect(signalsOf(a).listenerPid()).not.toBe(pid);
    expect(warnings).toContainEqual(expect.stringMatching(/lost its connection; reconnecting/));
  });

  it("ignores forged notifications (garbage, unknown ids, a real id whose row did not change) and logs them", async () => {
    const warnings: string[] = [];
    await using servers = await twoServers((message) => warnings.push(message));
    const { a } = servers;
    const { sessionId } = await a.script.session.create.mutate({});
    using onA = await watchEvents(await a.browser(), sessionId);
    const { runId } = await a.script.run.start.mutate({ sessionId });
    const call = a.script.run.invoke.mutate(create(runId, "forged", "c1"));
    const asked = await onA.next("approval_requested");
    const approvalId = asked.approval.approval_id;

    const channel = await channelOf((a.app.store as PostgresStore).pool);
    const forged = [
      "garbage",
      "approval:",
      `approval:${approvalId}'; DROP TABLE approvals; --`,
      `approval:${approvalId}`,
      `run:${runId}`,
      "job:job_forged",
      "approval:apr_forged",
    ];
    await withAdmin(async (client) => {
      for (const payload of forged) await client.query("SELECT pg_notify($1, $2)", [channel, payload]);
    });
    // Handled in order: once the last is logged, all were.
    await expect.poll(() => warnings.some((w) => w.includes('"apr_forged"')), { timeout: 10_000 }).toBe(true);
    expect(warnings.filter((w) => w.includes("not a signal"))).toHaveLength(3);
    expect(warnings).toContainEqual(expect.stringMatching(/job signal for "job_forged": no such job/));

    // Nothing changed: the approval is pending, the call still waits, the run still serves.
    const row = await a.app.store.sql("SELECT status FROM approvals WHERE id = ?").get(approvalId);
    expect(row).toEqual({ status: "pending" });
    expect(onA.events.map((e) => e.type)).toEqual(["approval_requested"]);
    expect(await a.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "list", args: [] })).toMatchObject({
      ok: true,
    });
    const browserA = await a.browser();
    await browserA.approvals.respond.mutate({ approvalId, answer: "deny" });
    expect(await call).toMatchObject({ ok: false, error: { code: "permission_denied" } });
  });
});
