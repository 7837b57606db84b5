/**
 * Two servers on one store (one DATA_DIR on SQLite; one database on Postgres when DATABASE_URL is set):
 * what is stored is shared, what is live stays with the server that started it.
 */
import { describe, expect, it } from "vitest";
import { startTestServer, WORKFLOWS } from "../support/server.ts";

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
});
