/** `npm run action`: the command function with a memory-backed run (the store-backed one is wired in main.ts). */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type ActionCommandDeps, actionCommand, parseActionArgs } from "../../server-bridge/cli/action.ts";
import type { Mode } from "../../shared/capabilities/types.ts";
import type { Approver } from "../../shared/gate/approvals.ts";
import { headlessGate } from "../../shared/gate/headless.ts";
import { memoryImpls, memoryRun, ScriptedApprover, scriptedGate } from "./harness.ts";

const dir = mkdtempSync(join(tmpdir(), "action-cli-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function deps(options: { stdin?: string; tty?: boolean; approver?: Approver; actionTimeoutMs?: number } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const store = memoryImpls();
  const modes: (Mode | undefined)[] = [];
  let ended = 0;
  const stdin = Object.assign(Readable.from([options.stdin ?? ""]), { isTTY: options.tty ?? false });
  const d: ActionCommandDeps = {
    makeRun: async ({ mode, approver }) => {
      modes.push(mode);
      const gate = mode === undefined ? headlessGate() : approver ? scriptedGate(mode, approver) : headlessGate(mode);
      const { run } = memoryRun({ gate, impls: store.impls });
      return { run, end: async () => void ended++ };
    },
    stdin,
    stdout: { write: (s: string) => out.push(s), isTTY: options.tty ?? false },
    stderr: { write: (s: string) => err.push(s) },
    ...(options.approver ? { terminalApprover: () => options.approver as Approver } : {}),
    ...(options.actionTimeoutMs ? { actionTimeoutMs: () => options.actionTimeoutMs as number } : {}),
  };
  return { d, out, err, modes, store, ended: () => ended };
}

const observation = (out: string[]) => JSON.parse(out.join(""));

describe("npm run action", () => {
  it("runs a batch over workflows and a csv parse from a file; exit 0 on ok", async () => {
    const t = deps();
    const path = file(
      "ok.js",
      `
      import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
      import { csv } from "@nodetool-ai/sandbox-packs/csv";
      const rows = (await csv.parse("name\\nA\\nB")).data;
      const made = await batch(rows, (row) => workflows.create(row.name));
      export default { rows: rows.length, made: made.map((r) => r.ok ? r.value.name : r.error.code) };`,
    );
    const code = await actionCommand([path, "--mode", "auto"], t.d);
    expect(code).toBe(0);
    expect(observation(t.out)).toMatchObject({ ok: true, result: { rows: 2, made: ["A", "B"] } });
    expect(t.ended()).toBe(1);
  });

  it("uses the headless gate with no mode: writes are denied, exit 1", async () => {
    const t = deps({
      stdin: `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows"; export default await workflows.create("x");`,
    });
    const code = await actionCommand(["-"], t.d);
    expect(code).toBe(1);
    expect(t.modes).toEqual([undefined]);
    expect(observation(t.out).error.code).toBe("permission_denied");
  });

  it("refuses an unknown import with a helpful message", async () => {
    const t = deps({ stdin: `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflow"; export default 1;` });
    expect(await actionCommand(["-"], t.d)).toBe(1);
    const error = observation(t.out).error;
    expect(error.code).toBe("import_refused");
    expect(error.message).toMatch(/Did you mean "@nodetool-ai\/sandbox-nodetool\/workflows"\?/);
    expect(error.message).toMatch(/Available: .*@nodetool-ai\/sandbox-packs\/csv/);
  });

  it("narrows modules and packs with flags", async () => {
    const t = deps({ stdin: `import { csv } from "@nodetool-ai/sandbox-packs/csv"; export default 1;` });
    expect(await actionCommand(["-", "--packs", "zip", "--modules", "workflows"], t.d)).toBe(1);
    expect(observation(t.out).error.message).toMatch(
      /Available: @nodetool-ai\/sandbox-nodetool\/workflows, @nodetool-ai\/sandbox-packs\/zip\./,
    );
  });

  it("asks on the terminal in default mode when both ends are a TTY and the action is a file", async () => {
    const approver = new ScriptedApprover("allow");
    const t = deps({ tty: true, approver });
    const path = file(
      "ask.js",
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows"; export default (await workflows.create("asked")).name;`,
    );
    expect(await actionCommand([path, "--mode=default"], t.d)).toBe(0);
    expect(approver.asked.map((r) => r.capability)).toEqual(["create_workflow"]);
  });

  it("denies in default mode when the action came from stdin", async () => {
    const approver = new ScriptedApprover("allow");
    const t = deps({
      tty: true,
      approver,
      stdin: `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows"; export default await workflows.create("x");`,
    });
    expect(await actionCommand(["-", "--mode", "default"], t.d)).toBe(1);
    expect(approver.asked).toHaveLength(0);
    expect(observation(t.out).error.code).toBe("permission_denied");
  });

  it("applies --timeout-ms", async () => {
    const t = deps({ stdin: "while (true) {}" });
    expect(await actionCommand(["-", "--timeout-ms", "200"], t.d)).toBe(1);
    expect(observation(t.out).error.code).toBe("timeout");
  });

  it("applies the configured deadline (ACTION_TIMEOUT_MS) without --timeout-ms, and --timeout-ms over it", async () => {
    const configured = deps({ stdin: "while (true) {}", actionTimeoutMs: 250 });
    expect(await actionCommand(["-"], configured.d)).toBe(1);
    expect(observation(configured.out).error).toMatchObject({
      code: "timeout",
      message: expect.stringContaining("time limit of 250 ms"),
    });
    const described = deps({ stdin: 'export default describe("contract");', actionTimeoutMs: 45_000 });
    expect(await actionCommand(["-"], described.d)).toBe(0);
    expect(observation(described.out).result).toContain("Limits: 45 s of run time");
    const overridden = deps({ stdin: "while (true) {}", actionTimeoutMs: 600_000 });
    expect(await actionCommand(["-", "--timeout-ms", "200"], overridden.d)).toBe(1);
    expect(observation(overridden.out).error.message).toContain("time limit of 200 ms");
  });

  it("prints the result as the action exported it: $-keys as written, bytes as {$bytes: base64}", async () => {
    const t = deps({
      stdin: `export default { "$ref": "#/a", "$$x": 1, nested: [{ "$schema": "s", "$asset": "data" }],
        bytes: new Uint8Array([1, 2, 3]) };`,
    });
    expect(await actionCommand(["-"], t.d)).toBe(0);
    expect(observation(t.out).result).toEqual({
      $ref: "#/a",
      $$x: 1,
      nested: [{ $schema: "s", $asset: "data" }],
      bytes: { $bytes: "AQID" },
    });
  });

  it("prints the usage and what each mode does for --help, exit 0, running nothing", async () => {
    const t = deps();
    expect(await actionCommand(["--help"], t.d)).toBe(0);
    expect(t.out.join("")).toContain("usage: npm run --silent action --");
    expect(t.out.join("")).toMatch(/--mode default {4}reads run/);
    expect(t.modes).toEqual([]);
    expect(t.err).toEqual([]);
  });

  it("answers usage errors with exit 2 on stderr", async () => {
    const t = deps();
    expect(await actionCommand(["--mode", "wild", "x.js"], t.d)).toBe(2);
    expect(t.out).toEqual([]);
    expect(t.err.join("")).toMatch(/--mode must be one of plan, default, auto/);
    expect(parseActionArgs([])).toEqual({ error: expect.stringMatching(/name a file/) });
  });
});
