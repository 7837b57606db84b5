/**
 * Runtimes prepared ahead (worker/host/prepared.ts): the next action's runtime is made while the host is
 * idle, yet every action still gets one of its own that no other action touched, with its own limits.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { afterAll, describe, expect, it } from "vitest";
import { headlessGate } from "../../shared/gate/headless.ts";
import { CallBridge } from "../../worker/host/bridge.ts";
import { ActionClock } from "../../worker/host/clock.ts";
import { DEFAULT_LIMITS } from "../../worker/host/limits.ts";
import { createModuleResolver } from "../../worker/host/loader.ts";
import { LogBuffer } from "../../worker/host/observation.ts";
import { PreparedRuntime } from "../../worker/host/prepared.ts";
import { inProcessSandbox, memoryRouter, memoryRun } from "./harness.ts";

const { run } = memoryRun({ gate: headlessGate("auto") });
const sandbox = inProcessSandbox(memoryRouter(run));
afterAll(() => sandbox[Symbol.dispose]());

/** Lets the host's idle preparation (a zero-delay timer after each action) run. */
const idle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("prepared runtimes", () => {
  it("are made while idle and taken by the next action", async () => {
    await sandbox.run("export default 1;");
    await idle();
    expect(sandbox.host.stats()).toMatchObject({ liveRuntimes: 0, preparedRuntimes: 1 });
    const { observation, timings } = await sandbox.run("export default 2;");
    expect(observation).toMatchObject({ ok: true, result: 2 });
    expect(timings.prepared_ahead).toBe(true);
    expect(timings.prepare_ms).toBeGreaterThan(0);
  });

  it("carry nothing from one action to the next", async () => {
    const first = await sandbox.run(`
      globalThis.leftover = "secret";
      Object.prototype.polluted = true;
      Array.prototype.push = () => "hijacked";
      console.log = () => {};
      export default 1;`);
    // Its own serialisation may break under what it did to the builtins; only the next action matters.
    expect(first.observation).toBeDefined();
    await idle();
    const { observation, timings } = await sandbox.run(`
      const xs = []; xs.push(1);
      console.log("still mine");
      export default { leftover: typeof globalThis.leftover, polluted: ({}).polluted === true, pushed: xs.length };`);
    expect(timings.prepared_ahead).toBe(true);
    expect(observation).toMatchObject({
      ok: true,
      result: { leftover: "undefined", polluted: false, pushed: 1 },
      logs: ["still mine"],
    });
  });

  it("take the action's own limits, not the defaults they were prepared with", async () => {
    await idle();
    const { observation, timings } = await sandbox.run(
      `const parts = []; for (;;) parts.push("x".repeat(1 << 16)); export default parts.length;`,
      { limits: { memory_bytes: 4 << 20 } },
    );
    expect(timings.prepared_ahead).toBe(true);
    expect(observation).toMatchObject({ ok: false, error: { code: "memory_limit" } });
    await idle();
    const next = await sandbox.run(`export default "x".repeat(8 << 20).length;`);
    expect(next.observation).toMatchObject({ ok: true, result: 8 << 20 });
  });

  it("still run actions queued back to back, each on a runtime of its own", async () => {
    const runs = await Promise.all(
      Array.from({ length: 5 }, (_, i) => sandbox.run(`globalThis.seen ??= []; seen.push(${i}); export default seen;`)),
    );
    expect(runs.map((r) => r.observation.result)).toEqual([[0], [1], [2], [3], [4]]);
    expect(sandbox.host.stats().liveRuntimes).toBe(0);
  });

  it("are built on one module when the first action arrives during warm-up", async () => {
    using fresh = inProcessSandbox(memoryRouter(run));
    const warming = fresh.host.warm();
    const { observation } = await fresh.run("export default 1;");
    await warming;
    expect(observation).toMatchObject({ ok: true, result: 1 });
    expect(fresh.host.stats().builds).toBe(1);
  });

  it("serve exactly one action", async () => {
    const module = await newQuickJSWASMModuleFromVariant(variant);
    const prepared = new PreparedRuntime(module, DEFAULT_LIMITS);
    const binding = () => {
      const clock = new ActionClock({ timeoutMs: 1000, creditCapMs: 0 });
      return {
        calls: new CallBridge({ ctx: prepared.context, clock, maxCalls: 1 }),
        logs: new LogBuffer(100),
        resolver: createModuleResolver({ mounted: [], packs: [] }),
        scope: { mounted: [], packs: [] },
        interrupted: () => false,
      };
    };
    prepared.bind(binding(), DEFAULT_LIMITS);
    expect(() => prepared.bind(binding(), DEFAULT_LIMITS)).toThrow(/exactly one action/);
    prepared.dispose();
    expect(() => prepared.bind(binding(), DEFAULT_LIMITS)).toThrow(/exactly one action/);
  });
});
