/**
 * Jobs survive nothing silently: a process that dies mid-job leaves a row whose lease runs out, and
 * the next start settles it as failed with the reason. A job whose owner is still alive (its lease
 * renewed) is left running by another process starting on the same store.
 */
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startChild } from "../support/child.ts";
import { startTestServer, tempDir, WORKFLOWS } from "../support/server.ts";
import { node } from "./support.ts";

const LEASE_MS = 3000;

interface JobRow {
  status: string;
  error: string | null;
  nodes: string;
  lease_owner: string | null;
  lease_expires: number | null;
}

describe("recovery of jobs", () => {
  it("leaves a live job alone, then settles it as failed once its process died and its lease expired", async () => {
    const dataDir = tempDir();
    const server = await startChild(dataDir, { LEASE_MS: String(LEASE_MS) });
    try {
      const client = server.script;
      const { sessionId } = await client.session.create.mutate({ mode: "auto" });
      const { runId } = await client.run.start.mutate({ sessionId });
      const graph = {
        nodes: [node("first", "constant.number", { value: 1 }), node("wait", "control.delay", { ms: 60_000 })],
        edges: [{ id: "e", source: "first", sourceHandle: "output", target: "wait", targetHandle: "value" }],
      };
      const started = (await client.run.invoke.mutate({
        runId,
        module: WORKFLOWS,
        export: "start",
        args: [{ graph }],
      })) as {
        ok: true;
        value: { job_id: string };
      };
      const jobId = started.value.job_id;

      // Another process starting on the same store while the owner lives: the job stays running.
      // (close(), not dispose: disposing a test server removes its data directory, which is shared here.)
      const other = await startTestServer({}, dataDir);
      try {
        const row = (await other.app.store.sql("SELECT * FROM jobs WHERE id = ?").get(jobId)) as JobRow;
        expect(row.status).toBe("running");
        expect(row.lease_owner).not.toBeNull();
      } finally {
        await other.close();
      }

      const before = await client.run.invoke.mutate({
        runId,
        module: "@nodetool-ai/sandbox-nodetool/jobs",
        export: "get",
        args: [jobId],
      });
      expect(before).toMatchObject({ ok: true, value: { status: "running" } });
      await server.kill();

      // Wait out the dead owner's lease (renewed up to the kill), then start again.
      for (;;) {
        const peek = await startTestServer({}, dataDir);
        const row = (await peek.app.store.sql("SELECT * FROM jobs WHERE id = ?").get(jobId)) as JobRow;
        if (row.status !== "running") {
          expect(row.status).toBe("failed");
          expect(JSON.parse(row.error ?? "null")).toEqual({
            code: "run_ended",
            message: expect.stringMatching(
              /^The process running this job stopped before it finished.*workflows\.start/,
            ),
          });
          expect(JSON.parse(row.nodes)).toMatchObject({
            first: { status: "completed" },
            wait: { status: "cancelled" },
          });
          expect(row.lease_owner).toBeNull();
          const { sessionId: s2 } = await peek.script.session.create.mutate({ mode: "auto" });
          const { runId: r2 } = await peek.script.run.start.mutate({ sessionId: s2 });
          const seen = await peek.script.run.invoke.mutate({
            runId: r2,
            module: "@nodetool-ai/sandbox-nodetool/jobs",
            export: "wait",
            args: [jobId],
          });
          expect(seen).toMatchObject({ ok: true, value: { status: "failed", error: { code: "run_ended" } } });
          await peek.close();
          break;
        }
        await peek.close();
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    } finally {
      await server.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
