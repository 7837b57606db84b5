/**
 * The process's sandbox pool (server-bridge/sandbox/pool.ts) on real worker threads: fair between
 * users by order, never by time. One user's runaway actions at the cap leave a worker for another
 * user, whose action finishes while they still spin; a free worker goes to the user served longest
 * ago; waiting ends at once on cancel; shutdown answers every waiting action; `run` never rejects.
 */
import { describe, expect, it } from "vitest";
import type { CallRouter } from "../../server-bridge/calls/router.ts";
import { configFromEnv } from "../../server-bridge/config.ts";
import { type PoolRunOptions, SandboxPool } from "../../server-bridge/sandbox/pool.ts";

const NO_CALLS: CallRouter = (calls) =>
  calls.map(async () => ({ ok: false, error: { code: "unknown_module", message: "none" } }) as const);

function options(user: string, extra: Partial<PoolRunOptions> = {}): PoolRunOptions {
  return { user, mounted: [], packs: [], router: NO_CALLS, ...extra };
}

describe("the sandbox pool", () => {
  it("gives another user a worker while one user's cap + 1 runaway actions spin, and finishes theirs first", async () => {
    await using pool = new SandboxPool({ workers: 3, userMax: 2, sandbox: { graceMs: 300 } });
    await pool.warm();
    const ended: string[] = [];
    const stopA = new AbortController();
    const runaway = [1, 2, 3].map((i) =>
      pool.run("while (1) {}", options("A", { limits: { timeout_ms: 20_000 }, signal: stopA.signal })).then((run) => {
        ended.push(`A${i}`);
        return run;
      }),
    );
    // A holds the two workers its cap allows; its third action waits behind A's own.
    expect(pool.usage("A")).toEqual({ running: 2, waiting: 1 });

    const b = await pool.run("export default 6 * 7;", options("B"));
    ended.push("B");
    expect(b.observation).toMatchObject({ ok: true, result: 42 });
    expect(ended).toEqual(["B"]);
    expect(pool.usage("A")).toEqual({ running: 2, waiting: 1 });

    stopA.abort();
    const outcomes = await Promise.all(runaway);
    expect(outcomes.map((run) => run.observation.error?.code)).toEqual(["cancelled", "cancelled", "cancelled"]);
    expect(outcomes[2]?.observation.error?.message).toMatch(/while it waited/);
    expect(pool.usage("A")).toEqual({ running: 0, waiting: 0 });
  });

  it("hands a free worker to the user served longest ago, so a backlog never makes others wait", async () => {
    await using pool = new SandboxPool({ workers: 1 });
    const order: string[] = [];
    const labels = ["A1", "A2", "A3", "B1", "C1", "B2"];
    await Promise.all(
      labels.map((label) =>
        pool.run(`export default "${label}";`, options(label.slice(0, 1))).then((run) => {
          order.push(run.observation.result as string);
        }),
      ),
    );
    // A1 took the free worker; then each waiting user in turn, the one served longest ago first.
    expect(order).toEqual(["A1", "B1", "C1", "A2", "B2", "A3"]);
  });

  it("sends an action to a worker whose runtime is prepared, not to the one still preparing after the last", async () => {
    await using pool = new SandboxPool({ workers: 2 });
    await pool.warm();
    const first = await pool.run("export default 1;", options("A"));
    // The worker that ran `first` is preparing its next runtime now; the other one has one ready.
    const second = await pool.run("export default 2;", options("A"));
    expect(second.worker).not.toBe(first.worker);
    expect([first.timings.prepared_ahead, second.timings.prepared_ahead]).toEqual([true, true]);
    expect(second.observation).toMatchObject({ ok: true, result: 2 });
  });

  it("shares back-to-back actions between its workers: a runtime an action already took never counts as prepared", async () => {
    await using pool = new SandboxPool({ workers: 2 });
    await pool.warm();
    const taken = [0, 0];
    // The first few hundred run while the workers' code is still being optimised, slowly enough that
    // either worker has long prepared; then each action is quicker than a preparation.
    for (let i = 0; i < 400; i++) {
      const run = await pool.run(`export default ${i};`, options("A"));
      expect(run.observation).toMatchObject({ ok: true, result: i });
      if (i >= 300) taken[run.worker ?? 0] = (taken[run.worker ?? 0] ?? 0) + 1;
    }
    // The worker that just answered is still preparing its next runtime (a "prepared" it posted before
    // it received that action is stale), so the other one takes the next action: they take turns. Once
    // it counted the runtime its action had taken, one worker took nearly every action and each waited
    // for that worker's preparation.
    expect(Math.min(...taken)).toBeGreaterThanOrEqual(25);
  });

  it("ends a wait at once when it is cancelled, and answers every waiting action on shutdown", async () => {
    const pool = new SandboxPool({ workers: 1, sandbox: { graceMs: 300 } });
    const busy = pool.run("while (1) {}", options("A", { limits: { timeout_ms: 20_000 } }));
    const cancel = new AbortController();
    const waiting = pool.run("export default 1;", options("B", { signal: cancel.signal }));
    const left = pool.run("export default 2;", options("C"));
    expect(pool.usage("B")).toEqual({ running: 0, waiting: 1 });
    cancel.abort();
    expect((await waiting).observation.error?.code).toBe("cancelled");
    expect(pool.usage("B")).toEqual({ running: 0, waiting: 0 });

    await pool.dispose();
    expect((await left).observation.error?.code).toBe("run_ended");
    expect((await busy).observation.error?.code).toBe("run_ended");
    const after = await pool.run("export default 3;", options("A"));
    expect(after.observation.error).toMatchObject({
      code: "run_ended",
      message: expect.stringMatching(/shutting down/),
    });
  });

  it("is sized by SANDBOX_WORKERS with a per-user cap below it (SANDBOX_USER_MAX)", () => {
    const defaults = configFromEnv({});
    expect(defaults.sandboxWorkers).toBeGreaterThanOrEqual(2);
    expect(defaults.sandboxUserMax).toBe(defaults.sandboxWorkers - 1);
    expect(configFromEnv({ SANDBOX_WORKERS: "6", SANDBOX_USER_MAX: "2" })).toMatchObject({
      sandboxWorkers: 6,
      sandboxUserMax: 2,
    });
    expect(() => configFromEnv({ SANDBOX_WORKERS: "4", SANDBOX_USER_MAX: "4" })).toThrow(/SANDBOX_USER_MAX/);
    expect(() => configFromEnv({ SANDBOX_WORKERS: "0" })).toThrow(/SANDBOX_WORKERS/);
    const pool = new SandboxPool({ workers: 4, userMax: 9 });
    expect([pool.workers, pool.userMax, pool.started]).toEqual([4, 3, false]);
  });
});
