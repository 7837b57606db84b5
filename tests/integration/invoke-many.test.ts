/**
 * `run.invokeMany`, the procedure the page sends a worker batch as: each call runs exactly as
 * `run.invoke` (gate, callId idempotency, hold), answers stream back in groups as they settle, a held
 * call answers `{pending: true}` and completes once when sent again, and the batch cap holds.
 */
import { describe, expect, it } from "vitest";
import { openStore } from "../../server-bridge/store/db.ts";
import { storeConfig } from "../support/database.ts";
import { startTestServer, WORKFLOWS } from "../support/server.ts";

type Group = { callId: string; answer: unknown }[];

async function collect(stream: AsyncIterable<Group>): Promise<{ groups: Group[]; byId: Map<string, unknown> }> {
  const groups: Group[] = [];
  const byId = new Map<string, unknown>();
  for await (const group of stream) {
    groups.push(group);
    for (const { callId, answer } of group) byId.set(callId, answer);
  }
  return { groups, byId };
}

describe("run.invokeMany", () => {
  it("answers a batch of reads in one group, each call as run.invoke would", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const calls = Array.from({ length: 50 }, (_, i) => ({
      module: WORKFLOWS,
      export: "list",
      args: [{ limit: 1 }],
      callId: `c${i}`,
    }));
    calls.push({ module: "@nodetool-ai/sandbox-nodetool/nope", export: "list", args: [], callId: "bad" });
    const { groups, byId } = await collect(await browser.run.invokeMany.mutate({ runId, calls }));
    expect(byId.size).toBe(51);
    expect(groups.length).toBeLessThan(51);
    expect(byId.get("c0")).toMatchObject({ ok: true });
    expect(byId.get("bad")).toMatchObject({ ok: false, error: { code: "unknown_module" } });
    // The same callId again answers the same call; it does not run twice.
    const again = await collect(await browser.run.invokeMany.mutate({ runId, calls: [calls[0] as (typeof calls)[0]] }));
    expect(again.byId.get("c0")).toEqual(byId.get("c0"));
    await server.app.audit.flush();
    const audited = await server.app.store
      .sql("SELECT count(*) AS n FROM audit WHERE run_id = ? AND capability = 'list_workflows'")
      .get(runId);
    expect(audited).toEqual({ n: 50 });
  });

  it("streams a read while a write in the same batch waits; the held write completes once when sent again", async () => {
    await using server = await startTestServer({ holdMs: 200 });
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({ mode: "default" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const write = { module: WORKFLOWS, export: "create", args: [{ name: "held" }], callId: "w" };
    const stream = await browser.run.invokeMany.mutate({
      runId,
      calls: [{ module: WORKFLOWS, export: "list", args: [], callId: "r" }, write],
    });
    const seen: Group[] = [];
    for await (const group of stream) seen.push(group);
    // The read came first, on its own; the write answered pending after the hold.
    expect(seen[0]?.map((a) => a.callId)).toEqual(["r"]);
    expect(seen.flat().find((a) => a.callId === "w")?.answer).toEqual({ pending: true });
    const pending = await browser.approvals.pending.query({ sessionId });
    expect(pending.approvals).toHaveLength(1);
    const resent = browser.run.invokeMany.mutate({ runId, calls: [write] });
    await browser.approvals.respond.mutate({
      approvalId: (pending.approvals[0] as { approval_id: string }).approval_id,
      answer: "allow",
    });
    const { byId } = await collect(await resent);
    expect(byId.get("w")).toMatchObject({ ok: true, value: { name: "held" } });
    expect(await server.app.store.sql("SELECT count(*) AS n FROM workflows WHERE name = 'held'").get()).toEqual({
      n: 1,
    });
  });

  it("refuses a batch over the configured cap, and calls with a reused callId and other arguments", async () => {
    await using server = await startTestServer({ maxBatchSize: 100 });
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const browser = await server.browser();
    const calls = Array.from({ length: 101 }, (_, i) => ({
      module: WORKFLOWS,
      export: "list",
      args: [],
      callId: `c${i}`,
    }));
    await expect(browser.run.invokeMany.mutate({ runId, calls }).then((s) => collect(s))).rejects.toThrow(
      /at most 100/,
    );
    await collect(await browser.run.invokeMany.mutate({ runId, calls: [calls[0] as (typeof calls)[0]] }));
    const { byId } = await collect(
      await browser.run.invokeMany.mutate({
        runId,
        calls: [{ ...(calls[0] as (typeof calls)[0]), args: [{ limit: 2 }] }],
      }),
    );
    expect(byId.get("c0")).toMatchObject({ ok: false, error: { code: "invalid_call" } });
  });
});

describe("session reads in a turn", () => {
  it("see this process's mode change at once, and another process's on the next turn", async () => {
    await using server = await startTestServer();
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    const sessions = server.app.sessions;
    expect(await sessions.mode(sessionId)).toBe("auto");
    const { user_id } = (await server.app.store.sql("SELECT user_id FROM sessions WHERE id = ?").get(sessionId)) as {
      user_id: string;
    };
    await sessions.setMode(user_id, sessionId, "plan");
    expect(await sessions.mode(sessionId)).toBe("plan");
    // The calls of one turn share one read; a second process on the same store changes the row,
    // and the next turn sees it.
    expect(sessions.mode(sessionId)).toBe(sessions.mode(sessionId));
    const { dataDir, databaseUrl } = await storeConfig(server.dataDir);
    await using other = await openStore(dataDir, databaseUrl);
    await other.sql("UPDATE sessions SET mode = 'default' WHERE id = ?").run(sessionId);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await sessions.mode(sessionId)).toBe("default");
  });
});
