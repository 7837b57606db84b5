/**
 * An action started while its run is still being opened (MCP's execute_code writes the run's row while
 * the action starts): its calls wait for the run and then go through it; when the run cannot be opened
 * they fail with run_ended, and nothing reaches a capability.
 */
import { afterAll, describe, expect, it } from "vitest";
import { defaultLibrary } from "../../server-bridge/packs/index.ts";
import { runSandboxedAction } from "../../server-bridge/sandbox/action.ts";
import { SandboxPool } from "../../server-bridge/sandbox/pool.ts";
import { MODULE_NAMES } from "../../shared/capabilities/table.ts";
import { headlessGate } from "../../shared/gate/headless.ts";
import { type CapabilityRun, createRun } from "../../shared/gate/invoke.ts";

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.dispose());

const invoked: string[] = [];
function run(): CapabilityRun<unknown> {
  return createRun<unknown>({
    context: { user_id: "u1", session_id: "s1", run_id: "r1", signal: new AbortController().signal },
    gate: headlessGate("auto"),
    services: {},
    loadImpl: async (spec) => async () => {
      invoked.push(spec.name);
      return { id: "wf_1", name: "found" };
    },
    audit: () => {},
  });
}

describe("an action whose run is still being opened", () => {
  it("waits for the run with its calls, then makes them through it", async () => {
    invoked.length = 0;
    let open!: (run: CapabilityRun<unknown>) => void;
    const ready = new Promise<CapabilityRun<unknown>>((resolve) => {
      open = resolve;
    });
    const action = runSandboxedAction(pool, {
      action: `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
        const wf = await workflows.get("wf_1"); export default wf.name;`,
      run: { user_id: "u1", ready },
      mounted: MODULE_NAMES,
      packs: [],
      library: defaultLibrary(),
    });
    // Nothing can have been invoked: there is no run yet.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(invoked).toEqual([]);
    open(run());
    const { observation } = await action;
    expect(observation).toMatchObject({ ok: true, result: "found" });
    expect(invoked).toEqual(["get_workflow"]);
  });

  it("fails its calls with run_ended when the run cannot be opened, and invokes nothing", async () => {
    invoked.length = 0;
    const { observation } = await runSandboxedAction(pool, {
      action: `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
        let outcome = "called";
        try { await workflows.get("wf_1"); } catch (e) { outcome = e.code; }
        export default outcome;`,
      run: { user_id: "u1", ready: Promise.reject(new Error("the session is gone")) },
      mounted: MODULE_NAMES,
      packs: [],
      library: defaultLibrary(),
    });
    expect(observation).toMatchObject({ ok: true, result: "run_ended" });
    expect(invoked).toEqual([]);
  });
});
