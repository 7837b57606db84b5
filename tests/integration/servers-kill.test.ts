/**
 * Server A, a real process, killed with SIGKILL while it holds a run waiting on an approval and a
 * running job; server B on the same store settles all three once A's leases lapse (the approval as
 * a timeout, the run as expired, the job as failed with the reason) and B's page is told each. On
 * Postgres B's page also saw A's job progress live before the kill. On SQLite the same holds with
 * both servers on one DATA_DIR (what A did live is not pushed to B there: B's page lists it on connect).
 */
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { node } from "../engine/support.ts";
import { startChild } from "../support/child.ts";
import { dropDatabaseFor } from "../support/database.ts";
import { watchEvents } from "../support/events.ts";
import { startTestServer, tempDir, WORKFLOWS } from "../support/server.ts";

const LEASE_MS = 1500;
const onPostgres = Boolean(process.env.DATABASE_URL);

describe("a server killed with SIGKILL, settled by another", () => {
  it("B settles A's run, approval and job after their leases lapse, and B's page hears each", async () => {
    const dataDir = tempDir();
    const a = await startChild(dataDir, { LEASE_MS: String(LEASE_MS), INVOKE_HOLD_MS: "100" });
    const b = await startTestServer({ leaseMs: LEASE_MS }, dataDir);
    try {
      const browserB = await b.browser();
      const asking = await a.script.session.create.mutate({});
      const working = await a.script.session.create.mutate({ mode: "auto" });
      using jobsOnB = await watchEvents(browserB, working.sessionId);

      // On A: a call waiting on an approval...
      const { runId } = await a.script.run.start.mutate({ sessionId: asking.sessionId });
      const call = { runId, module: WORKFLOWS, export: "create", args: ["never"], callId: "c1" };
      expect(await a.script.run.invoke.mutate(call)).toEqual({ pending: true });
      using approvalsOnB = await watchEvents(browserB, asking.sessionId);
      const asked = await approvalsOnB.next("approval_requested");
      expect(asked.approval).toMatchObject({ run_id: runId, capability: "create_workflow" });

      // ...and a job whose second node runs for a minute.
      const { runId: jobRunId } = await a.script.run.start.mutate({ sessionId: working.sessionId });
      const graph = {
        nodes: [node("first", "constant.number", { value: 1 }), node("wait", "control.delay", { ms: 60_000 })],
        edges: [{ id: "e", source: "first", sourceHandle: "output", target: "wait", targetHandle: "value" }],
      };
      const started = await a.script.run.invoke.mutate({
        runId: jobRunId,
        module: WORKFLOWS,
        export: "start",
        args: [{ graph }],
      });
      const jobId = (started as { ok: true; value: { job_id: string } }).value.job_id;
      const nodes = b.app.store.sql("SELECT nodes FROM jobs WHERE id = ?");
      await expect
        .poll(async () => JSON.parse(((await nodes.get(jobId)) as { nodes: string }).nodes).wait?.status, {
          timeout: 10_000,
        })
        .toBe("running");
      if (onPostgres) {
        // Live from A's row writes, before anything happened to A.
        await expect
          .poll(() => jobsOnB.events.some((e) => e.type === "job_progress" && e.node_id === "wait"), {
            timeout: 10_000,
          })
          .toBe(true);
      }

      await a.kill();

      // B's lease keeper settles them once A's leases (renewed up to the kill) have lapsed.
      expect(await approvalsOnB.next("approval_settled", 30_000)).toEqual({
        type: "approval_settled",
        approval_id: asked.approval.approval_id,
        status: "timeout",
      });
      await expect
        .poll(() => approvalsOnB.events.find((e) => e.type === "run_ended"), { timeout: 30_000 })
        .toEqual({ type: "run_ended", run_id: runId, reason: "expired" });
      expect(await jobsOnB.next("job_ended", 30_000)).toMatchObject({
        job_id: jobId,
        status: "failed",
        error: { code: "run_ended", message: expect.stringMatching(/stopped before it finished/) },
      });

      const row = (sql: string, id: string) => b.app.store.sql(sql).get(id);
      expect(await row("SELECT status, lease_owner FROM approvals WHERE id = ?", asked.approval.approval_id)).toEqual({
        status: "timeout",
        lease_owner: null,
      });
      expect(await row("SELECT status FROM runs WHERE id = ?", runId)).toEqual({ status: "expired" });
      expect(await row("SELECT status FROM runs WHERE id = ?", jobRunId)).toEqual({ status: "expired" });
      const job = (await row("SELECT status, nodes FROM jobs WHERE id = ?", jobId)) as {
        status: string;
        nodes: string;
      };
      expect(job.status).toBe("failed");
      expect(JSON.parse(job.nodes)).toMatchObject({ first: { status: "completed" }, wait: { status: "cancelled" } });

      // Nothing is left to answer, and nothing ran.
      expect(await browserB.approvals.pending.query({ sessionId: asking.sessionId })).toEqual({ approvals: [] });
      await expect(
        browserB.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow" }),
      ).rejects.toMatchObject({ data: { error: { code: "invalid_call" } } });
      expect(await b.app.store.sql("SELECT count(*) AS n FROM workflows").get()).toEqual({ n: 0 });
    } finally {
      await a.kill();
      await b.close();
      await dropDatabaseFor(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
