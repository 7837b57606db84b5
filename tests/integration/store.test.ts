import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createServices } from "../../server-bridge/app.ts";
import { configFromEnv } from "../../server-bridge/config.ts";
import { PG_MIGRATIONS } from "../../server-bridge/store/postgres.ts";
import { MIGRATIONS, openSqlite, type SqliteStore } from "../../server-bridge/store/sqlite.ts";
import { WorkflowStore } from "../../server-bridge/store/workflows.ts";
import { AssetRef } from "../../shared/protocol/values.ts";
import { storeConfig, storeEnv } from "../support/database.ts";
import { watchEvents } from "../support/events.ts";
import { startTestServer, tempDir, WORKFLOWS } from "../support/server.ts";

describe("the store across restarts and processes", () => {
  it("keeps workflows, sessions and the allow-set across a restart", async () => {
    const first = await startTestServer();
    const { sessionId } = await first.script.session.create.mutate({ mode: "auto" });
    const { runId } = await first.script.run.start.mutate({ sessionId });
    const created = (await first.script.run.invoke.mutate({
      runId,
      module: WORKFLOWS,
      export: "create",
      args: ["kept"],
    })) as {
      value: { id: string };
    };
    await first.app.sessions.allowSet(sessionId).add("create_workflow");
    await using second = await first.restart();
    expect(second.token).toBe(first.token);
    expect(await second.script.session.get.query({ sessionId })).toMatchObject({ mode: "auto" });
    expect(await second.script.session.allowed.query({ sessionId })).toEqual({ allowed: ["create_workflow"] });
    const { runId: run2 } = await second.script.run.start.mutate({ sessionId });
    expect(
      await second.script.run.invoke.mutate({
        runId: run2,
        module: WORKFLOWS,
        export: "get",
        args: [created.value.id],
      }),
    ).toMatchObject({
      ok: true,
      value: { name: "kept", version: 1 },
    });
    // The run of the stopped process ended with it; its calls now answer run_ended.
    expect(await second.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "list", args: [] })).toMatchObject(
      {
        ok: false,
        error: { code: "run_ended" },
      },
    );
  });

  it("a second process opening the same DATA_DIR disturbs nothing the server holds live", async () => {
    await using server = await startTestServer({ holdMs: 100 });
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({});
    using events = await watchEvents(browser, sessionId);
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const input = { runId, module: WORKFLOWS, export: "create", args: ["live"], callId: "p1" };
    expect(await server.script.run.invoke.mutate(input)).toEqual({ pending: true });
    const asked = await events.next("approval_requested");

    // A real second process on the same DATA_DIR; awaited without blocking the server under test.
    const child = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "server-bridge/main.ts", "user", "add", "bob"],
      {
        env: { ...process.env, ...(await storeEnv(server.dataDir)) },
        encoding: "utf8",
      },
    ).then(
      (out) => ({ status: 0, ...out }),
      (err: { code?: number; stdout: string; stderr: string }) => ({
        status: err.code ?? 1,
        stdout: err.stdout,
        stderr: err.stderr,
      }),
    );
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({ userId: expect.any(String), token: expect.any(String) });

    const row = await server.app.store.sql("SELECT status FROM approvals WHERE id = ?").get(asked.approval.approval_id);
    expect(row).toEqual({ status: "pending" });
    await browser.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow" });
    // The same callId resumes the call: held up to holdMs each time, then pending until it settles.
    let answer = await server.script.run.invoke.mutate(input);
    for (let i = 0; i < 100 && "pending" in answer; i++) answer = await server.script.run.invoke.mutate(input);
    expect(answer).toMatchObject({ ok: true, value: { name: "live" } });
  });

  it("settles only expired leases at start: pending approvals as timeout, runs as expired", async () => {
    const dataDir = tempDir();
    try {
      // A healthy process (its lease is long), then one that will "crash": it never renews its 1 ms lease.
      const healthy = await createServices(
        configFromEnv({}, { ...(await storeConfig(dataDir)), leaseMs: 60_000 }),
        () => {},
      );
      const keeper = await healthy.runs.start("local", (await healthy.sessions.create("local", {})).sessionId);
      const crashed = await createServices(
        configFromEnv({}, { ...(await storeConfig(dataDir)), leaseMs: 1 }),
        () => {},
      );
      const session = await crashed.sessions.create("local", {});
      const live = await crashed.runs.start("local", session.sessionId);
      const waiting = crashed.runs.invoke("local", {
        runId: live.id,
        module: WORKFLOWS,
        export: "create",
        args: ["lost"],
      });
      const approval = crashed.store.sql("SELECT status FROM approvals WHERE run_id = ?");
      for (let i = 0; i < 500 && !(await approval.get(live.id)); i++) await new Promise((next) => setTimeout(next, 10));
      expect(await approval.get(live.id)).toEqual({ status: "pending" });
      await new Promise((next) => setTimeout(next, 5)); // past the crashed process's lease

      const third = await createServices(configFromEnv({}, await storeConfig(dataDir)), () => {});
      expect(await approval.get(live.id)).toEqual({ status: "timeout" });
      expect(await third.store.sql("SELECT status, end_reason FROM runs WHERE id = ?").get(live.id)).toEqual({
        status: "expired",
        end_reason: "the process serving it stopped",
      });
      expect(await third.store.sql("SELECT status FROM runs WHERE id = ?").get(keeper.id)).toEqual({
        status: "running",
      });
      // Ending the runs settles the call still waiting in `crashed` (its audit row follows a turn later).
      for (const s of [third, healthy, crashed]) await s.runs.endAll();
      expect(await waiting).toMatchObject({ ok: false });
      await new Promise((next) => setImmediate(next));
      for (const s of [third, healthy, crashed]) {
        await s.audit.flush();
        await s.store.dispose();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("migrates once: WAL with a busy timeout on SQLite, every version recorded once on Postgres", async () => {
    await using server = await startTestServer();
    const { store } = server.app;
    if (store.dialect === "postgres") {
      await using again = await server.restart();
      const versions = await again.app.store.sql("SELECT version FROM schema_version ORDER BY version").all();
      expect(versions).toEqual(PG_MIGRATIONS.map((_, i) => ({ version: i + 1 })));
      return;
    }
    const { db } = store as SqliteStore;
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
  });

  it("says at /health which store it runs on: Postgres with DATABASE_URL, else SQLite", async () => {
    await using server = await startTestServer();
    const health = (await (await fetch(`${server.url}/health`)).json()) as { store: string };
    expect(health.store).toBe(process.env.DATABASE_URL ? "postgres" : "sqlite");
    expect(server.app.store.dialect).toBe(health.store);
  });

  it("re-encodes graphs stored before values were escaped: old markers stay references, other $-keys stay data", async () => {
    const dataDir = tempDir();
    try {
      const db = new Database(join(dataDir, "nodetool.sqlite"));
      for (const migration of MIGRATIONS.slice(0, 3)) db.exec(migration as string);
      db.pragma("user_version = 3");
      db.prepare("INSERT INTO users (id, name, created_at) VALUES ('u1', 'old', 0)").run();
      const legacy = { nodes: [{ id: "n", type: "constant.json", data: { pic: { $asset: "as_1" }, $note: "x" } }] };
      db.prepare(
        "INSERT INTO workflows (id, user_id, name, graph, version, created_at, updated_at) VALUES ('wf_1', 'u1', 'old', ?, 1, 0, 0)",
      ).run(JSON.stringify(legacy));
      db.close();
      using store = openSqlite(dataDir);
      const row = (await store.sql("SELECT graph FROM workflows WHERE id = 'wf_1'").get()) as { graph: string };
      expect(JSON.parse(row.graph).nodes[0].data).toEqual({ pic: { $asset: "as_1" }, $$note: "x" });
      const graph = (await new WorkflowStore(store).require("u1", "wf_1")).graph;
      expect(graph.nodes[0]?.data.pic).toEqual(new AssetRef("as_1"));
      expect(graph.nodes[0]?.data.$note).toBe("x");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
