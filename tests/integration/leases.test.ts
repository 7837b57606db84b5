/**
 * Leases settled while the server runs, not only at start: a second services instance on the same
 * DATA_DIR plays a process that stopped (it never renews its leases); the running server's lease
 * keeper settles its pending approval (timeout), its run (expired) and its job (failed with the
 * reason), announces each on the session's event stream, and leaves the server's own live rows alone.
 * An answer to an approval whose asker is gone is refused with `run_ended`, never reported as taken.
 */
import { describe, expect, it } from "vitest";
import { createServices } from "../../server-bridge/app.ts";
import type { AppServices } from "../../server-bridge/app-services.ts";
import { LOCAL_USER } from "../../server-bridge/auth/tokens.ts";
import { configFromEnv } from "../../server-bridge/config.ts";
import { node } from "../engine/support.ts";
import { storeConfig } from "../support/database.ts";
import { watchEvents } from "../support/events.ts";
import { startTestServer, type TestServer, untilSettled, WORKFLOWS } from "../support/server.ts";

/**
 * Services on the server's store that will "die": no lease keeper, so nothing they own is renewed, and
 * deaf to the other processes' signals (a live process would stop its run when told it expired).
 */
async function doomed(server: TestServer, leaseMs: number): Promise<AppServices & AsyncDisposable> {
  const app = await createServices(configFromEnv({}, { ...(await storeConfig(server.dataDir)), leaseMs }), () => {});
  await app.store.signals.dispose();
  return Object.assign(app, {
    [Symbol.asyncDispose]: async () => {
      await app.runs.endAll();
      await app.jobs.dispose();
      await app.audit.flush();
      await app.store.dispose();
    },
  });
}

/** A write waiting on an approval in `app`'s process, once its approval row is in the store. */
async function pendingWrite(app: AppServices, name: string) {
  const session = await app.sessions.create(LOCAL_USER, { mode: "default" });
  const live = await app.runs.start(LOCAL_USER, session.sessionId);
  const answer = app.runs.invoke(LOCAL_USER, { runId: live.id, module: WORKFLOWS, export: "create", args: [name] });
  const asked = app.store.sql("SELECT 1 FROM approvals WHERE run_id = ? AND status = 'pending'");
  for (let i = 0; i < 200 && !(await asked.get(live.id)); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return { sessionId: session.sessionId, runId: live.id, answer };
}

const status = async (server: TestServer, table: "approvals" | "runs" | "jobs", where: string, id: string) =>
  ((await server.app.store.sql(`SELECT status FROM ${table} WHERE ${where} = ?`).get(id)) as { status: string }).status;

describe("lease keeping while the server runs", () => {
  it("settles a stopped process's approval, run and job, announces them, and keeps its own", async () => {
    await using server = await startTestServer({ leaseMs: 600, holdMs: 100 });
    const browser = await server.browser();

    // The server's own run, waiting on an approval of its own.
    const own = await server.script.session.create.mutate({ mode: "default" });
    const { runId: ownRun } = await server.script.run.start.mutate({ sessionId: own.sessionId });
    const held = { runId: ownRun, module: WORKFLOWS, export: "create", args: ["own"], callId: "own" };
    expect(await server.script.run.invoke.mutate(held)).toEqual({ pending: true });

    // Another process, started after the server (so start-up recovery cannot be what settles it).
    await using other = await doomed(server, 600);
    const write = await pendingWrite(other, "orphan");
    const jobSession = await other.sessions.create(LOCAL_USER, { mode: "auto" });
    const jobRun = await other.runs.start(LOCAL_USER, jobSession.sessionId);
    const graph = { nodes: [node("wait", "control.delay", { ms: 60_000 })], edges: [] };
    const started = await other.runs.invoke(LOCAL_USER, {
      runId: jobRun.id,
      module: WORKFLOWS,
      export: "start",
      args: [{ graph }],
    });
    const jobId = (started as { value: { job_id: string } }).value.job_id;

    using approvals = await watchEvents(browser, write.sessionId);
    using jobs = await watchEvents(browser, jobSession.sessionId);
    const asked = await approvals.next("approval_requested"); // replayed from the store
    // The server's keeper settles them once the other process's lease has run out.
    expect(await approvals.next("approval_settled")).toEqual({
      type: "approval_settled",
      approval_id: asked.approval.approval_id,
      status: "timeout",
    });
    // The run's lease was taken before its approval's: a sweep between the two ends the run first.
    await expect
      .poll(() => approvals.events.find((event) => event.type === "run_ended"), { timeout: 10_000 })
      .toMatchObject({ run_id: write.runId, reason: "expired" });
    expect(await jobs.next("job_ended")).toMatchObject({
      job_id: jobId,
      status: "failed",
      error: { code: "run_ended", message: expect.stringMatching(/stopped before it finished/) },
    });
    expect(await status(server, "approvals", "id", asked.approval.approval_id)).toBe("timeout");
    expect(await status(server, "runs", "id", write.runId)).toBe("expired");
    expect(await status(server, "runs", "id", jobRun.id)).toBe("expired");
    expect(await status(server, "jobs", "id", jobId)).toBe("failed");
    expect(await browser.approvals.pending.query({ sessionId: write.sessionId })).toEqual({ approvals: [] });
    // Had the asker been alive after all, it would learn the truth: a timeout, not an answer.
    expect(await write.answer).toMatchObject({ ok: false, error: { code: "approval_timeout" } });

    // The server's own rows, renewed by its keeper all along, are untouched.
    expect(await status(server, "runs", "id", ownRun)).toBe("running");
    const [mine] = (await browser.approvals.pending.query({ sessionId: own.sessionId })).approvals;
    expect(mine?.capability).toBe("create_workflow");
    await browser.approvals.respond.mutate({ approvalId: mine?.approval_id ?? "", answer: "allow" });
    expect(await untilSettled(() => server.script.run.invoke.mutate(held))).toMatchObject({
      ok: true,
      value: { name: "own" },
    });
  });

  it("refuses an answer to an approval whose asker is gone with run_ended, and settles it", async () => {
    // The server sweeps rarely here; the other process's lease runs out long before the first sweep.
    await using server = await startTestServer({ leaseMs: 60_000 });
    const browser = await server.browser();
    await using other = await doomed(server, 200);
    const write = await pendingWrite(other, "too late");
    using events = await watchEvents(browser, write.sessionId);
    const asked = await events.next("approval_requested");
    // Past the other process's lease (it never renews): its waiter can no longer be reached.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await expect(
      browser.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow" }),
    ).rejects.toMatchObject({
      data: { httpStatus: 409, error: { code: "run_ended", message: expect.stringMatching(/no one waiting/) } },
    });
    expect(await status(server, "approvals", "id", asked.approval.approval_id)).toBe("timeout");
    expect(await events.next("approval_settled")).toMatchObject({ status: "timeout" });
    // Nothing ran: the asking side sees a timeout, not an allow.
    expect(await write.answer).toMatchObject({ ok: false, error: { code: "approval_timeout" } });
    expect(await server.app.store.sql("SELECT count(*) AS n FROM workflows").get()).toEqual({ n: 0 });
  });
});
