/**
 * 500 create/run/dispose cycles: no runtime left alive, no module rebuilt (a leaked handle would make
 * runtime disposal abort and force a rebuild), and no growth in wasm memory after warm-up.
 */
import { describe, expect, it } from "vitest";
import { headlessGate } from "../../shared/gate/headless.ts";
import { inProcessSandbox, memoryRouter, memoryRun } from "../sandbox/harness.ts";

const ACTION = `
  import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
  import { csv } from "@nodetool-ai/sandbox-packs/csv";
  const made = await workflows.create("w" + Math.random());
  const rows = await csv.parse("a,b\\n1,2");
  try { await workflows.get("missing"); } catch (e) { console.log(e.code); }
  const parts = await batch([1, 2, 3], async (n) => n * 2);
  const big = new Array(10000).fill("x").join("");
  export default { id: made.id, rows: rows.data.length, parts: parts.length, big: big.length };`;

describe("lifetimes", () => {
  it("500 create/run/dispose cycles leave nothing behind", async () => {
    const { run } = memoryRun({ gate: headlessGate("auto") });
    using sandbox = inProcessSandbox(memoryRouter(run));
    const wasmAt: number[] = [];
    for (let i = 0; i < 500; i++) {
      const { observation } = await sandbox.run(ACTION);
      expect(observation.ok).toBe(true);
      expect(sandbox.host.stats().liveRuntimes).toBe(0);
      if (i === 49 || i === 499) wasmAt.push(sandbox.host.stats().wasmBytes);
    }
    // Once idle, the last action's runtime is gone and only the next one's, prepared, remains.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const stats = sandbox.host.stats();
    expect(stats).toMatchObject({ liveRuntimes: 0, retiredRuntimes: 0, preparedRuntimes: 1 });
    expect(stats.builds).toBe(1);
    expect(stats.actions).toBe(500);
    expect(wasmAt[1]).toBe(wasmAt[0]);
  });
});
