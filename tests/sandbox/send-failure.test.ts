/**
 * A batch of guest calls the worker cannot post to its host (the host's port refuses it): each call
 * fails at once with `run_ended`, the action goes on and can catch it, and nothing waits for a result
 * that will never come.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { describe, expect, it } from "vitest";
import { MODULE_NAMES } from "../../shared/capabilities/table.ts";
import { SandboxHost } from "../../worker/host/runtime.ts";
import { compileNodeWasm } from "../../worker/node-wasm.ts";

const SHARED = "@nodetool-ai/sandbox-nodetool/shared";

describe("calls the worker cannot send", () => {
  it.each([
    ["the action's first call", `import { shared } from "${SHARED}";`],
    ["a call after an await with nothing else pending", `import { shared } from "${SHARED}";\nawait 0;`],
  ])("fail with run_ended and let the action go on: %s", async (_label, prelude) => {
    using host = new SandboxHost({
      variant,
      wasm: compileNodeWasm,
      sendCalls: () => {
        throw new Error("the port is closed");
      },
    });
    const response = await host.run({
      type: "run",
      run_id: "run_send_failure",
      action: `${prelude}
let code;
try { await shared.list(); } catch (err) { code = err.code; }
export default code;`,
      mounted: [...MODULE_NAMES],
    });
    expect(response.observation).toMatchObject({ ok: true, result: "run_ended" });
    expect(response.observation.calls).toEqual([expect.objectContaining({ capability: "list_shared", ok: false })]);
  });
});
