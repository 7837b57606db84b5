import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createServices } from "../../server-bridge/app.ts";
import { configFromEnv } from "../../server-bridge/config.ts";
import { MIGRATIONS } from "../../server-bridge/store/db.ts";
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
    first.app.sessions.allowSet(sessionId).add("create_workflow");
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
        env: { ...process.env, DATA_DIR: server.dataDir },
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

    const row = server.app.store.db
      .prepare("SELECT status FROM approvals WHERE id = ?")
      .get(asked.approval.approval_id);
    expect(row).toEqual({ status: "pending" });
    await browser.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow" });
    expect(await server.script.run.invoke.mutate(input)).toMatchObject({ ok: true, value: { name: "live" } });
  });

  it("settles only expired leases at start: pending approvals as timeout, runs as expired", () => {
    const dataDir = tempDir();
    try {
      const crashed = createServices(configFromEnv({}, { dataDir, leaseMs: 1 }), () => {});
      const session = crashed.sessions.create("local", {});
      const live = crashed.runs.start("local", session.sessionId);
      void crashed.runs.invoke("local", { runId: live.id, module: WORKFLOWS, export: "create", args: ["lost"] });
      // The "crashed" process never renews; a healthy one renews its own lease.
      const healthy = createServices(configFromEnv({}, { dataDir, leaseMs: 60_000 }), () => {});
      const keeper = healthy.runs.start("local", healthy.sessions.create("local", {}).sessionId);
      return new Promise<void>((resolve, reject) => {
        setTimeout(() => {
          try {
            const pending = crashed.store.db.prepare("SELECT status FROM approvals WHERE run_id = ?").get(live.id);
            expect(pending).toEqual({ status: "pending" });
            const third = createServices(configFromEnv({}, { dataDir }), () => {});
            expect(third.store.db.prepare("SELECT status FROM approvals WHERE run_id = ?").get(live.id)).toEqual({
              status: "timeout",
            });
            expect(third.store.db.prepare("SELECT status, end_reason FROM runs WHERE id = ?").get(live.id)).toEqual({
              status: "expired",
              end_reason: "the process serving it stopped",
            });
            expect(third.store.db.prepare("SELECT status FROM runs WHERE id = ?").get(keeper.id)).toEqual({
              status: "running",
            });
            for (const s of [third, healthy, crashed]) {
              s.runs.endAll();
              s.store.dispose();
            }
            resolve();
          } catch (err) {
            reject(err);
          }
        }, 30);
      });
    } finally {
      setTimeout(() => rmSync(dataDir, { recursive: true, force: true }), 100);
    }
  });

  it("migrates once and uses WAL with a busy timeout", async () => {
    await using server = await startTestServer();
    expect(server.app.store.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(server.app.store.db.pragma("busy_timeout", { simple: true })).toBe(5000);
    expect(server.app.store.db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
  });
});
