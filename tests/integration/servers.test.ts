/**
 * Two servers on one store (one DATA_DIR on SQLite; one database on Postgres when DATABASE_URL is set):
 * what is stored is shared, what is live stays with the server that started it.
 */
import { describe, expect, it } from "vitest";
import { answerValue, openRun } from "../engine/support.ts";
import { databaseFor } from "../support/database.ts";
import { startFakeS3 } from "../support/fake-s3.ts";
import { startTestServer, tempDir, WORKFLOWS } from "../support/server.ts";

const ASSETS = "@nodetool-ai/sandbox-nodetool/assets";

describe("two servers on one store", () => {
  it("share workflows, and refuse a call for a run the other server holds live, naming it", async () => {
    await using a = await startTestServer();
    const b = await startTestServer({}, a.dataDir);
    try {
      expect(b.token).toBe(a.token);
      const onA = await a.script.session.create.mutate({ mode: "auto" });
      const { runId: runA } = await a.script.run.start.mutate({ sessionId: onA.sessionId });
      const { runId: runB } = await b.script.run.start.mutate({ sessionId: onA.sessionId });

      // Written through one, read through the other.
      const create = { module: WORKFLOWS, export: "create", args: ["from A"] };
      expect(await a.script.run.invoke.mutate({ runId: runA, ...create })).toMatchObject({ ok: true });
      const listed = await b.script.run.invoke.mutate({ runId: runB, module: WORKFLOWS, export: "list", args: [] });
      expect(listed).toMatchObject({ ok: true, value: { workflows: [{ name: "from A" }], count: 1 } });

      // A's run sent to B: refused with its code, the message says who holds it; A still serves it.
      const misrouted = await b.script.run.invoke.mutate({ runId: runA, module: WORKFLOWS, export: "list", args: [] });
      expect(misrouted).toMatchObject({
        ok: false,
        error: { code: "capability_unavailable", message: expect.stringContaining(a.app.owner) },
      });
      expect(
        await a.script.run.invoke.mutate({ runId: runA, module: WORKFLOWS, export: "list", args: [] }),
      ).toMatchObject({
        ok: true,
      });

      // Once A has ended it, B says the run has ended, as for any run that is over.
      await a.script.run.end.mutate({ runId: runA });
      expect(
        await b.script.run.invoke.mutate({ runId: runA, module: WORKFLOWS, export: "list", args: [] }),
      ).toMatchObject({
        ok: false,
        error: { code: "run_ended" },
      });
    } finally {
      await b.close();
    }
  });

  it("lists on one server an approval a run raised on the other, and the answer given there lets the call run", async () => {
    await using a = await startTestServer({ holdMs: 100 });
    const b = await startTestServer({ holdMs: 100 }, a.dataDir);
    try {
      const { sessionId } = await a.script.session.create.mutate({});
      const { runId } = await a.script.run.start.mutate({ sessionId });
      const input = { runId, module: WORKFLOWS, export: "create", args: ["asked on A"], callId: "c1" };
      expect(await a.script.run.invoke.mutate(input)).toEqual({ pending: true });
      const browserB = await b.browser();
      const { approvals } = await browserB.approvals.pending.query({ sessionId });
      expect(approvals).toMatchObject([{ run_id: runId, capability: "create_workflow" }]);
      await browserB.approvals.respond.mutate({ approvalId: approvals[0]?.approval_id ?? "", answer: "allow" });
      // The answer is in the store first; A's waiter reads it there, and the call resumes by its callId.
      let answer = await a.script.run.invoke.mutate(input);
      for (let i = 0; i < 100 && "pending" in answer; i++) answer = await a.script.run.invoke.mutate(input);
      expect(answer).toMatchObject({ ok: true, value: { name: "asked on A" } });
      await expect(
        browserB.approvals.respond.mutate({ approvalId: approvals[0]?.approval_id ?? "", answer: "allow" }),
      ).rejects.toMatchObject({ data: { error: { code: "invalid_call" } } });
    } finally {
      await b.close();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)(
    "on one Postgres with DATA_DIRs of their own, an asset saved on A is, on B, a file not in B's DATA_DIR",
    async () => {
      await using a = await startTestServer();
      const { call } = await openRun(a, "auto");
      const saved = (await call(ASSETS, "save", [{ name: "report.txt", content: "saved on A" }])) as {
        value: { id: string };
      };
      const id = saved.value.id;
      const b = await startTestServer({ databaseUrl: await databaseFor(a.dataDir), authToken: a.token }, tempDir());
      try {
        const headers = { authorization: `Bearer ${a.token}` };
        expect((await fetch(`${a.url}/assets/${id}`, { headers })).status).toBe(200);
        const onB = await fetch(`${b.url}/assets/${id}`, { headers });
        expect(onB.status).toBe(404);
        expect(((await onB.json()) as { error: { message: string } }).error.message).toContain(
          "its file is not in this server's data directory (DATA_DIR). Servers that share a Postgres must share DATA_DIR",
        );
      } finally {
        await b[Symbol.asyncDispose]();
      }
    },
  );

  it.skipIf(!process.env.DATABASE_URL)(
    "on one Postgres with DATA_DIRs of their own and one bucket (ASSET_S3_BUCKET), an asset saved on A is served, read and deleted on B",
    async () => {
      await using s3 = await startFakeS3();
      const assetS3 = s3.config();
      await using a = await startTestServer({ assetS3 });
      const saved = answerValue<{ id: string }>(
        await (await openRun(a, "auto")).call(ASSETS, "save", [{ name: "report.txt", content: "saved on A" }]),
      );
      const b = await startTestServer(
        { databaseUrl: await databaseFor(a.dataDir), authToken: a.token, assetS3 },
        tempDir(),
      );
      try {
        const headers = { authorization: `Bearer ${a.token}` };
        const onB = await fetch(`${b.url}/assets/${saved.id}`, { headers });
        expect([onB.status, await onB.text()]).toEqual([200, "saved on A"]);
        const { call } = await openRun(b, "auto");
        expect(answerValue(await call(ASSETS, "get", [saved.id]))).toMatchObject({ content: "saved on A" });
        answerValue(await call(ASSETS, "delete", [saved.id]));
        expect(s3.objects.size).toBe(0);
        expect((await fetch(`${a.url}/assets/${saved.id}`, { headers })).status).toBe(404);
      } finally {
        await b[Symbol.asyncDispose]();
      }
    },
  );
});
