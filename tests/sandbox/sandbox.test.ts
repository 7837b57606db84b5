/** The sandbox host in-process (real QuickJS, no thread): the action contract, helpers and limits. */
import { afterAll, describe, expect, it } from "vitest";
import type { CallRouter, GuestCall } from "../../server-bridge/calls/router.ts";
import type { InvokeResult } from "../../shared/capabilities/types.ts";
import { headlessGate } from "../../shared/gate/headless.ts";
import { inProcessSandbox, memoryRouter, memoryRun } from "./harness.ts";

const WF = `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";`;
const { run } = memoryRun({ gate: headlessGate("auto") });
const batches: GuestCall[][] = [];
const base = memoryRouter(run);
const recording: CallRouter = (calls, signal) => {
  batches.push([...calls]);
  return base(calls, signal);
};
const sandbox = inProcessSandbox(recording);
afterAll(() => sandbox[Symbol.dispose]());

describe("the action contract", () => {
  it("returns export default, with top-level await", async () => {
    const { observation } = await sandbox.run(`await null; export default { n: 1 + 1 };`);
    expect(observation).toMatchObject({ ok: true, result: { n: 2 }, logs: [], calls: [] });
    expect(typeof observation.duration_ms).toBe("number");
  });

  it("accepts the non-module form with a top-level return, imports included", async () => {
    const { observation } = await sandbox.run(`${WF}\nconst made = await workflows.create("r");\nreturn made.name;`);
    expect(observation).toMatchObject({ ok: true, result: "r" });
  });

  it("answers null when nothing is exported", async () => {
    const { observation } = await sandbox.run(`console.log("hi")`);
    expect(observation).toMatchObject({ ok: true, result: null, logs: ["hi"] });
  });

  it("captures console output with levels", async () => {
    const { observation } = await sandbox.run(
      `console.log("a", {b: 1}); console.warn("w"); console.error(new TypeError("e"));`,
    );
    expect(observation.logs).toEqual(['a {"b":1}', "[warn] w", "[error] TypeError: e"]);
  });

  it("reports a thrown error with its line and column", async () => {
    const { observation } = await sandbox.run(`const a = 1;\nnull.x;`);
    expect(observation.ok).toBe(false);
    expect(observation.error).toMatchObject({ code: "action_failed", line: 2 });
    expect(observation.error?.message).toMatch(/^The action threw TypeError/);
  });

  it("an uncaught throw is the action's own failure: action_failed with its message, line and column", async () => {
    const { observation } = await sandbox.run(`const a = 1;\n  throw new RangeError("no such page " + a);`);
    expect(observation.error).toEqual({
      code: "action_failed",
      message: "The action threw RangeError: no such page 1",
      // Where QuickJS made the error: the call that constructed it.
      line: 2,
      column: 23,
    });
  });

  it("a host global the action lacks (fetch, setTimeout, require) says what to use instead; others are left as they are", async () => {
    const message = async (code: string) => (await sandbox.run(code)).observation.error?.message;
    expect(await message(`const r = await fetch("https://example.com");`)).toBe(
      "The action threw ReferenceError: 'fetch' is not defined (an action has no network of its own: call http_request from the web module).",
    );
    expect(await message(`await new Promise((r) => setTimeout(r, 10));`)).toContain(
      "'setTimeout' is not defined (an action has no timers: to wait for a job, call jobs.wait).",
    );
    expect(await message(`const fs = require("fs");`)).toContain(
      "'require' is not defined (an action has no Node or browser APIs: import capability modules;",
    );
    expect(await message(`export default missing + 1;`)).toBe(
      "The action threw ReferenceError: 'missing' is not defined",
    );
  });

  it("an uncaught CapabilityError keeps its call's code; a plain one thrown by the action is action_failed", async () => {
    const called = await sandbox.run(`${WF} await workflows.get("missing"); export default 1;`);
    expect(called.observation.error?.code).toBe("capability_failed");
    const own = await sandbox.run(`throw new CapabilityError({ message: "mine" });`);
    expect(own.observation.error?.code).toBe("capability_failed");
    const plain = await sandbox.run(`throw "a string";`);
    expect(plain.observation.error).toMatchObject({
      code: "action_failed",
      message: "The action threw Error: a string",
    });
  });

  it("reports a syntax error with its position, before running anything", async () => {
    const { observation } = await sandbox.run(`const a = ;`);
    expect(observation.error).toMatchObject({ code: "action_failed", line: 1, column: 11 });
    expect(observation.error?.message).toMatch(/SyntaxError/);
  });

  it("ends a deadlock at once with a clear error", async () => {
    const { observation } = await sandbox.run(`await new Promise(() => {}); export default 1;`, {
      limits: { timeout_ms: 60_000 },
    });
    expect(observation.ok).toBe(false);
    expect(observation.error?.message).toMatch(/^Deadlock/);
    expect(observation.duration_ms).toBeLessThan(60_000);
  });
});

describe("capability calls from the guest", () => {
  it("a namespace object's unknown method throws unknown_export naming the closest; then, toJSON and symbols stay undefined", async () => {
    const { observation } = await sandbox.run(`${WF}
import csv from "@nodetool-ai/sandbox-packs/csv";
const caught = (f) => { try { f(); return "no error"; } catch (e) { return { name: e.name, code: e.code, message: e.message, suggestions: e.suggestions }; } };
export default {
  facade: caught(() => workflows.lst()),
  shim: caught(() => nodetool.memory.serch("x")),
  pack: caught(() => csv.parze("a")),
  then: typeof workflows.then, toJSON: typeof workflows.toJSON, iterator: typeof workflows[Symbol.iterator], tag: typeof workflows[Symbol.toStringTag],
  awaited: (await workflows) === workflows,
  json: JSON.stringify(workflows),
  has: ["lst" in workflows, "list" in workflows],
  text: String(workflows),
  list: typeof workflows.list, hasOwn: typeof workflows.hasOwnProperty,
};`);
    expect(observation.ok).toBe(true);
    const result = observation.result as Record<string, unknown>;
    expect(result.facade).toEqual({
      name: "CapabilityError",
      code: "unknown_export",
      message: expect.stringContaining(
        'module "@nodetool-ai/sandbox-nodetool/workflows" has no method "lst". Did you mean "list"',
      ),
      suggestions: expect.arrayContaining(["list"]),
    });
    expect((result.facade as { message: string }).message).toContain("Its methods: list, get, create,");
    expect(result.shim).toMatchObject({ code: "unknown_export", suggestions: expect.arrayContaining(["search"]) });
    expect(result.pack).toMatchObject({ code: "unknown_export", suggestions: expect.arrayContaining(["parse"]) });
    expect(result).toMatchObject({ awaited: true, json: "{}", has: [false, true], text: "[object Object]" });
    expect(result).toMatchObject({ list: "function", hasOwn: "function" });
    for (const key of ["then", "toJSON", "iterator", "tag"]) expect(result[key]).toBe("undefined");

    const uncaught = await sandbox.run(`${WF}\nawait workflows.lst();`);
    expect(uncaught.observation.error).toMatchObject({ code: "unknown_export" });
    expect(uncaught.observation.error?.message).toContain('Did you mean "list"');
  });

  it("throws a CapabilityError with code, capability and issues", async () => {
    const { observation } = await sandbox.run(`${WF}
      try { await workflows.create({ name: 42 }); } catch (e) {
        export_ = { isCE: e instanceof CapabilityError, name: e.name, code: e.code, capability: e.capability, issues: e.issues, hasStack: /\\/work\\//.test(String(e.stack)) };
      }
      var export_; export default export_;`);
    expect(observation.result).toMatchObject({
      isCE: true,
      name: "CapabilityError",
      code: "invalid_tool_arguments",
      capability: "create_workflow",
      hasStack: false,
    });
    expect((observation.result as { issues: string[] }).issues[0]).toMatch(/^name:/);
  });

  it("coalesces the calls issued in one tick into one batch", async () => {
    batches.length = 0;
    const { observation } = await sandbox.run(`${WF}
      export default (await Promise.all([workflows.create("a"), workflows.create("b"), workflows.list()])).length;`);
    expect(observation.result).toBe(3);
    expect(batches.length).toBe(1);
    expect(batches[0]?.map((c) => c.export)).toEqual(["create_workflow", "create_workflow", "list_workflows"]);
  });

  it("offers the same calls through the nodetool global, for mounted namespaces only", async () => {
    batches.length = 0;
    const { observation } = await sandbox.run(
      `const made = await nodetool.workflows.create("via shim");
       export default { name: made.name, keys: Object.keys(nodetool), memory: typeof nodetool.memory,
         methods: Object.keys(nodetool.workflows).slice(0, 3), fn: nodetool.workflows.list.name };`,
      { mounted: ["workflows"] },
    );
    expect(observation.result).toEqual({
      name: "via shim",
      keys: ["workflows"],
      memory: "undefined",
      methods: ["list", "get", "create"],
      fn: "list_workflows",
    });
    expect(batches[0]?.[0]).toMatchObject({
      module: "@nodetool-ai/sandbox-nodetool/workflows",
      export: "create_workflow",
    });
  });

  it("caps the calls one action may make", async () => {
    const { observation } = await sandbox.run(
      `${WF} const out = []; for (let i = 0; i < 4; i++) { try { await workflows.list(); out.push("ok"); } catch (e) { out.push(e.code); } } export default out;`,
      { limits: { max_calls: 2 } },
    );
    expect(observation.result).toEqual(["ok", "ok", "invalid_call", "invalid_call"]);
  });

  it("passes bytes both ways as Uint8Array (zip pack round trip)", async () => {
    const { observation } = await sandbox.run(`
      import { zip, unzip } from "@nodetool-ai/sandbox-packs/zip";
      const archive = await zip({ "a.txt": "hello", "b.bin": new Uint8Array([0, 255, 7]) });
      const files = await unzip(archive);
      export default { isBytes: archive instanceof Uint8Array, a: Array.from(files["a.txt"]), b: Array.from(files["b.bin"]) };`);
    expect(observation.result).toEqual({ isBytes: true, a: [...new TextEncoder().encode("hello")], b: [0, 255, 7] });
  });

  it("refuses a function argument before it leaves the guest", async () => {
    const { observation } = await sandbox.run(`${WF}
      try { await workflows.list({ limit: () => 1 }); } catch (e) { v = [e.code, e.message]; } var v; export default v;`);
    expect(observation.result).toEqual(["invalid_call", expect.stringMatching(/args\[0\]\.limit is a function/)]);
  });
});

describe("guest helpers", () => {
  it("batch settles every item in order, never throws, and clamps concurrency", async () => {
    const { observation } = await sandbox.run(`
      let active = 0, peak = 0;
      const out = await batch([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], async (n) => {
        active++; peak = Math.max(peak, active); await null; await null; active--;
        if (n === 3) throw new CapabilityError({ code: "permission_denied", message: "no" });
        return n * 2;
      }, { concurrency: 100 });
      const stopped = await batch([1, 2, 3], async (n) => { if (n === 1) throw new Error("x"); return n; }, { concurrency: 1, stopOnError: true });
      export default { peak, out: out.map((r) => r.ok ? r.value : r.error.code), stopped: stopped.map((r) => r.ok || r.error.code), bad: await batch(null, () => 1) };`);
    expect(observation.result).toEqual({
      peak: 8,
      out: [2, 4, "permission_denied", 8, 10, 12, 14, 16, 18, 20],
      stopped: ["action_failed", "cancelled", "cancelled"],
      bad: [],
    });
  });

  it("capabilities() lists mounted namespaces and searchTools() finds by words", async () => {
    const { observation } = await sandbox.run(
      `const found = searchTools("create workflow", 2);
export default { caps: capabilities().map((c) => c.namespace), found, outputRef: found[0].output_schema.$ref };`,
      { mounted: ["workflows", "memory"] },
    );
    const result = observation.result as {
      caps: string[];
      found: { name: string; signature: string; input_schema: unknown }[];
      outputRef: string;
    };
    expect(result.caps).toEqual(["workflows", "memory", "csv", "zip"]);
    expect(result.found[0]?.name).toBe("create_workflow");
    expect(result.found[0]?.signature).toMatch(/^workflows\.create\(\{ name: string/);
    // Each hit carries both JSON Schemas, as the catalog does.
    expect(result.found[0]?.input_schema).toMatchObject({ type: "object", required: ["name"] });
    expect(result.outputRef).toBe("#/$defs/Workflow");
  });

  it("describe() answers declarations of a module, one capability, the globals and this action's contract", async () => {
    const { observation } = await sandbox.run(
      `const failed = (name) => { try { describe(name); return "no error"; } catch (e) { return { name: e.name, code: e.code, suggestions: e.suggestions, message: e.message }; } };
export default {
  index: describe(), module: describe("memory"), one: describe("workflows.list"), wire: describe("list_workflows"),
  globals: describe("globals"), contract: describe("contract"), unknown: failed("workflows.lst"), unmounted: failed("jobs"),
};`,
      { mounted: ["workflows", "memory"], limits: { timeout_ms: 12_000, max_calls: 7 } },
    );
    expect(observation.ok).toBe(true);
    const result = observation.result as Record<string, string> & Record<"unknown" | "unmounted", unknown>;
    expect(result.index).toContain('describe("workflows.list")');
    expect(result.index).toContain("memory: Durable memory");
    expect(result.module).toContain('declare module "@nodetool-ai/sandbox-nodetool/memory"');
    expect(result.module).toContain("export function save_memory(content: string");
    expect(result.module).toMatch(/export const memory: \{[\s\S]*save: typeof save_memory;/);
    expect(result.one).toContain(
      "export function list_workflows(args?: ListWorkflowsArgs): Promise<ListWorkflowsResult>;",
    );
    expect(result.one).toContain("workflows: WorkflowSummary[];");
    expect(result.one).not.toContain("get_workflow");
    expect(result.wire).toBe(result.one);
    expect(result.globals).toContain("declare function batch<");
    expect(result.globals).toContain('readonly memory: typeof import("@nodetool-ai/sandbox-nodetool/memory").memory;');
    expect(result.globals).not.toContain("sandbox-nodetool/jobs");
    expect(result.contract).toContain("12 s of run time");
    expect(result.contract).toContain("at most 7 capability calls");
    expect(result.contract).toContain("blocked_in_plan_mode: plan mode runs reads only");
    expect(result.unknown).toMatchObject({ name: "CapabilityError", code: "unknown_capability" });
    expect((result.unknown as { suggestions: string[] }).suggestions).toContain("workflows.list");
    expect(result.unmounted).toMatchObject({ code: "unknown_capability" });
  });
});

describe("limits inside the VM", () => {
  it("refuses a result over the size limit, measured in the VM", async () => {
    const { observation } = await sandbox.run(`export default "x".repeat(5000);`, {
      limits: { max_result_chars: 1000 },
    });
    expect(observation.error?.code).toBe("result_too_large");
  });

  it("truncates an observation over its limit with a visible marker, as valid JSON", async () => {
    const { observation } = await sandbox.run(`export default "y".repeat(5000);`, {
      limits: { max_observation_chars: 1000 },
    });
    expect(observation.truncated).toBe(true);
    expect(JSON.stringify(observation).length).toBeLessThanOrEqual(1000);
    expect(JSON.stringify(observation.result)).toMatch(/result truncated: 5002 characters/);
  });

  it("caps logs with a marker", async () => {
    const { observation } = await sandbox.run(`for (let i = 0; i < 1000; i++) console.log("line " + i);`, {
      limits: { max_log_chars: 200 },
    });
    expect(observation.logs.length).toBeLessThan(40);
    expect(observation.logs.at(-1)).toMatch(/log output truncated/);
  });

  it("times out a busy loop through the interrupt handler", async () => {
    const { observation } = await sandbox.run(`while (true) {}`, { limits: { timeout_ms: 200 } });
    expect(observation.error?.code).toBe("timeout");
  });

  it("credits approval waits to the deadline", async () => {
    const slow: CallRouter = (calls) =>
      calls.map(
        () =>
          new Promise<InvokeResult>((resolve) =>
            setTimeout(() => resolve({ ok: true, value: 1, waited_ms: 400 }), 400),
          ),
      );
    using waiting = inProcessSandbox(slow);
    const { observation } = await waiting.run(`${WF} export default await workflows.create("x");`, {
      limits: { timeout_ms: 250 },
    });
    expect(observation).toMatchObject({ ok: true, result: 1 });
    expect(observation.calls[0]?.waited_ms).toBe(400);
  });

  it("leaves an approval's wait out of the action's time and the call's, and states it apart", async () => {
    const asking: CallRouter = (calls) =>
      calls.map(
        () =>
          new Promise<InvokeResult>((resolve) =>
            setTimeout(() => resolve({ ok: true, value: 1, waited_ms: 400, approval_ms: 400 }), 400),
          ),
      );
    using waiting = inProcessSandbox(asking);
    const { observation } = await waiting.run(`${WF} export default await workflows.create("x");`);
    expect(observation).toMatchObject({ ok: true, result: 1, approval_ms: 400 });
    expect(observation.calls[0]).toMatchObject({ approval_ms: 400, waited_ms: 400 });
    expect(observation.duration_ms).toBeLessThan(400);
    expect(observation.calls[0]?.ms).toBeLessThan(400);
  });
});
