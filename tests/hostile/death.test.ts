/**
 * A worker that dies mid-action (as a crash or an uncaught abort would end it) takes down only itself:
 * its action answers a coded error, the next action runs on a fresh worker, and in a pool another
 * user's action on another worker finishes untouched. The worker is the real entry (built by the test
 * setup) wrapped by a fixture that exits when it sends a call carrying "__die__".
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { CallRouter } from "../../server-bridge/calls/router.ts";
import { NodeSandboxHost } from "../../server-bridge/sandbox/host.ts";
import { SandboxPool } from "../../server-bridge/sandbox/pool.ts";
import { expectNoLeak } from "./leak-check.ts";

const DYING = fileURLToPath(new URL("./fixtures/dying-entry.mjs", import.meta.url));
const WF = `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";`;
const answer: CallRouter = (calls) => calls.map(async () => ({ ok: true as const, value: { ok: 1 } }));
const options = { mounted: ["workflows"], router: answer };

describe("a worker that dies mid-action", () => {
  it("answers run_ended, is replaced, and the next action runs", async () => {
    await using host = await NodeSandboxHost.start({ workerFile: DYING });
    expect((await host.run(`${WF} export default (await workflows.list()).ok;`, options)).observation).toMatchObject({
      ok: true,
      result: 1,
    });
    const died = await host.run(`${WF} await workflows.create({ name: "__die__" }); export default "never";`, options);
    expect(died.observation.ok).toBe(false);
    expect(died.observation.error).toMatchObject({ code: "run_ended", message: expect.stringMatching(/stopped/) });
    expect(host.restarts).toBe(1);
    const next = await host.run(`${WF} export default (await workflows.list()).ok + 41;`, options);
    expect(next.observation).toMatchObject({ ok: true, result: 42 });
    await expectNoLeak(host);
  });

  it("in a pool, takes down only its own worker: another user's action finishes", async () => {
    await using pool = new SandboxPool({ workers: 2, sandbox: { workerFile: DYING } });
    await pool.warm();
    const [died, other] = await Promise.all([
      pool.run(`${WF} await workflows.create({ name: "__die__" }); export default 1;`, { ...options, user: "A" }),
      pool.run(`${WF} await workflows.list(); export default "B's";`, { ...options, user: "B" }),
    ]);
    expect(died.observation.error?.code).toBe("run_ended");
    expect(other.observation).toMatchObject({ ok: true, result: "B's" });
    const next = await pool.run("export default 7;", { ...options, user: "A" });
    expect(next.observation).toMatchObject({ ok: true, result: 7 });
    expect(pool.restarts).toBe(1);
  });
});
