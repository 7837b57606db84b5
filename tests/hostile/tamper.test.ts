/**
 * An action that tampers with the builtins the sandbox's own guest code uses, through the real worker
 * thread. Each builtin worker/guest/capture.js copies is replaced in turn (read off its source, so the
 * list cannot fall behind it) with one that never returns, before the action exercises every path
 * of the sandbox (logs, calls with bytes both ways, a refused call, batch, capabilities(), searchTools,
 * the nodetool shim, a late import, openWorkflow, the result, an uncaught error, a result too large):
 * the observation must be the one the same action gets untouched. And the host never reads a guest
 * object after a slice: a result whose getters hang ends in `timeout`, and the worker serves the next.
 */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CallRouter, GuestCall } from "../../server-bridge/calls/router.ts";
import { NodeSandboxHost } from "../../server-bridge/sandbox/host.ts";
import type { InvokeResult } from "../../shared/capabilities/types.ts";
import type { LimitOverrides, Observation } from "../../shared/protocol/worker.ts";
import { expectNoLeak } from "./leak-check.ts";

/** capture.js's code without its comments (which name builtins it deliberately does not capture). */
const CAPTURE = readFileSync(new URL("../../worker/guest/capture.js", import.meta.url), "utf8")
  .replace(/\/\*[\s\S]*?\*\//g, "")
  .replace(/\/\/.*$/gm, "");

/** Every builtin capture.js copies, as `[object expression, key expression]` in guest source. */
function capturedTargets(): [string, string][] {
  const targets = new Map<string, [string, string]>();
  const add = (object: string, key: string) => targets.set(`${object}[${key}]`, [object, key]);
  // Its rows: `Name: [object, "members" (+ "more members"), "accessors"]`.
  const row = /\w+: \[\s*([\w.]+),\s*((?:"[^"]*"\s*\+?\s*)+)(?:,\s*"([^"]*)")?,?\s*\]/g;
  for (const [, object, members, accessors] of CAPTURE.matchAll(row)) {
    const keys = `${(members ?? "").replace(/"\s*\+\s*"|"/g, "")} ${accessors ?? ""}`.split(/\s+/);
    for (const key of keys.filter(Boolean)) add(object as string, JSON.stringify(key));
  }
  // And what it reads on the way: `Object.getPrototypeOf`, `FunctionPrototype[Symbol.hasInstance]`, ...
  for (const [path] of CAPTURE.matchAll(/\b[A-Z][A-Za-z0-9]*(?:\.[A-Za-z_$][\w$]*)+/g)) {
    const parts = path.split(".");
    add(parts.slice(0, -1).join("."), JSON.stringify(parts.at(-1)));
  }
  for (const [, object, key] of CAPTURE.matchAll(/(\w+)\[(Symbol\.\w+)\]/g)) add(object as string, key as string);
  for (const [, object, key] of CAPTURE.matchAll(/getter\(([\w.]+), (Symbol\.\w+)\)/g))
    add(object as string, key as string);
  return [...targets.values()];
}

/**
 * What the sandbox must not depend on either, though it captures nothing for them: the iterator
 * protocol, array species, a constructor's own Symbol.hasInstance. (A toJSON, a `then` or a getter the
 * action puts on Object.prototype is the action's own data speaking: its values inherit it, and the
 * encoder and the language honour it as they would anywhere. Promise.prototype.then is the language's:
 * QuickJS's `await` calls it, so the action's own awaits stop; contained below.)
 */
const PROTOCOL_TARGETS: [string, string][] = [
  ["Array.prototype", "Symbol.iterator"],
  ["Object.getPrototypeOf([][Symbol.iterator]())", '"next"'],
  ["Array.prototype", '"constructor"'],
  ["Error", "Symbol.hasInstance"],
  ["Uint8Array", "Symbol.hasInstance"],
];

// The names capture.js gives the objects it copies from, so its expressions read the same here.
const PRELUDE = `
const FunctionPrototype = Function.prototype;
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const describeOwn = Object.getOwnPropertyDescriptor;
const defineOwn = Object.defineProperty;
const hang = function () { for (;;) {} };
/** Replaces object[key] with one that never returns; says how, or that the language forbids it. */
function tamper(object, key) {
  const found = describeOwn(object, key);
  if (found && !found.configurable && !found.writable) return "locked";
  if (found && !found.configurable) { object[key] = hang; return "replaced"; }
  if (found && "value" in found) defineOwn(object, key, { value: hang, writable: true, configurable: true });
  else defineOwn(object, key, { get: hang, set: hang, configurable: true });
  return "replaced";
}
const bytes = new Uint8Array([1, 2, 250]);
const when = new Date(0);
const shown = new TypeError("shown");
const plain = new Error("plain");
const refusedCall = new TypeError("boom");
const big = "x".repeat(2000);
`;

const MODULES = ["workflows", "memory", "ui"];
const IMPORT = `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";`;

function action(tamperCall: string, body: string): string {
  return `${IMPORT}\n${PRELUDE}\nconst tampered = ${tamperCall};\n${body}`;
}

const EXERCISE = `
console.log("text", { n: 1, list: [1, 2] }, shown);
const echoed = await workflows.create({ name: "n", graph: { bytes, nested: [1, { $odd: true }] } });
let refused;
try { await workflows.get("missing"); } catch (e) { refused = { code: e.code, issues: e.issues, name: e.name }; }
const items = await batch([1, 2, 3], async (n) => { if (n === 2) throw plain; return n * 10; });
const caps = capabilities().length;
const found = searchTools("create workflow", 1)[0].name;
const shim = typeof nodetool.workflows.list;
const late = typeof (await import("@nodetool-ai/sandbox-nodetool/memory")).memory;
const graph = await openWorkflow("wf_1");
graph.addNode("b", "t", { k: 1 }, { x: 1, y: 2 });
graph.connect("a", "out", "b", "in");
const committed = await graph.commit();
export default {
  tampered, echoed, refused, items, caps, found, shim, late, bytes, when, err: shown, odd: { $key: 1 },
  committed: { ok: committed.ok, applied: committed.applied, nodes: committed.nodes.length },
};`;

const UNCAUGHT_CALL = `await workflows.get("missing");`;
const UNCAUGHT_THROW = `throw refusedCall;`;
const TOO_LARGE = `export default big;`;

/** Answers by wire name, the way the real router would (values in host form, encoded by serveBatch). */
const router: CallRouter = (calls: readonly GuestCall[]) =>
  calls.map(async (call): Promise<InvokeResult> => {
    switch (call.export) {
      case "get_workflow":
        return { ok: false, error: { code: "invalid_tool_arguments", message: "bad", issues: ["workflow_id: wrong"] } };
      case "ui_get_graph":
        return { ok: true, value: { nodes: [{ id: "a", type: "t", data: {}, position: { x: 0, y: 0 } }], edges: [] } };
      case "ui_connect_nodes":
        return { ok: true, value: { edge_id: "e1" } };
      default:
        return { ok: true, value: { export: call.export, args: call.args, bytes: new Uint8Array([9, 8]) } };
    }
  });

let host: NodeSandboxHost;
beforeAll(async () => {
  host = await NodeSandboxHost.start({ graceMs: 300 });
});
afterAll(async () => {
  await host.dispose();
});
afterEach(async () => {
  await expectNoLeak(host);
});

async function act(source: string, limits: LimitOverrides = {}): Promise<Observation> {
  const { observation } = await host.run(source, {
    mounted: MODULES,
    packs: [],
    router,
    limits: { timeout_ms: 3000, ...limits },
  });
  return observation;
}

/** What must not change with the tampering: everything but timings (and the tamper's own report). */
function comparable(observation: Observation): unknown {
  const { duration_ms: _duration, ...rest } = observation;
  const result = observation.result as { tampered?: unknown } | undefined;
  return {
    ...rest,
    calls: rest.calls.map(({ ms: _ms, ...call }) => call),
    ...(result && typeof result === "object" ? { result: { ...result, tampered: "-" } } : {}),
  };
}

const bodies = { exercise: EXERCISE, call: UNCAUGHT_CALL, throw: UNCAUGHT_THROW, large: TOO_LARGE };
const LIMITS: Record<keyof typeof bodies, LimitOverrides> = {
  exercise: {},
  call: {},
  throw: {},
  large: { max_result_chars: 1000 },
};
const baseline: Partial<Record<keyof typeof bodies, Observation>> = {};

describe("an untouched action", () => {
  it("exercises every path of the sandbox", async () => {
    for (const [name, body] of Object.entries(bodies) as [keyof typeof bodies, string][]) {
      baseline[name] = await act(action('"none"', body), LIMITS[name]);
    }
    expect(baseline.exercise).toMatchObject({
      ok: true,
      logs: ['text {"n":1,"list":[1,2]} TypeError: shown'],
      result: {
        tampered: "none",
        // In the wire form observations carry: bytes as $bytes, a "$" key escaped.
        echoed: { export: "create_workflow", bytes: { $bytes: "CQg=" } },
        refused: { code: "invalid_tool_arguments", issues: ["workflow_id: wrong"], name: "CapabilityError" },
        items: [
          { ok: true, value: 10 },
          { ok: false, error: { code: "action_failed", message: "plain" } },
          { ok: true, value: 30 },
        ],
        found: "create_workflow",
        shim: "function",
        late: "object",
        bytes: { $bytes: "AQL6" },
        when: "1970-01-01T00:00:00.000Z",
        err: { name: "TypeError", message: "shown" },
        odd: { $key: 1 },
        committed: { ok: true, applied: 2, nodes: 1 },
      },
    });
    const result = baseline.exercise?.result as { echoed: { args: unknown } } | undefined;
    expect(result?.echoed.args).toEqual([
      { name: "n", graph: { bytes: { $bytes: "AQL6" }, nested: [1, { $odd: true }] } },
    ]);
    expect(baseline.call?.error).toMatchObject({ code: "invalid_tool_arguments", message: "bad" });
    expect(baseline.throw?.error).toMatchObject({ code: "action_failed", message: "The action threw TypeError: boom" });
    expect(baseline.large?.error?.code).toBe("result_too_large");
  });
});

describe("a tampered builtin changes nothing the sandbox does", () => {
  const captured = capturedTargets();

  it("reads the captured builtins off capture.js", () => {
    const names = captured.map(([object, key]) => `${object}[${key}]`);
    for (const expected of ['JSON["stringify"]', 'Array.prototype["push"]', 'globalThis["Map"]']) {
      expect(names).toContain(expected);
    }
    expect(names).toContain('TypedArrayPrototype["length"]');
    expect(captured.length).toBeGreaterThan(50);
  });

  it.each([...captured, ...PROTOCOL_TARGETS])("%s[%s]", async (object, key) => {
    const tamperCall = `tamper(${object}, ${key})`;
    for (const [name, body] of Object.entries(bodies) as [keyof typeof bodies, string][]) {
      const observation = await act(action(tamperCall, body), LIMITS[name]);
      expect(comparable(observation), name).toEqual(comparable(baseline[name] as Observation));
    }
  });
});

describe("the host reads only primitives made inside a watched slice", () => {
  it("a replaced JSON.stringify is never called: the issue's action returns its result", async () => {
    const o = await act(
      `const hang = { length: 0, get tooLarge() { Array.prototype.indexOf.call({ length: 2 ** 40 }, 1); return 1; } };
      JSON.stringify = () => hang; export default 1;`,
      { timeout_ms: 1000 },
    );
    expect(o).toMatchObject({ ok: true, result: 1 });
  });

  it("a result whose getter never checks the interrupt ends in timeout, and the worker serves the next", async () => {
    const restarts = host.restarts;
    const o = await act(
      `export default { length: 0, get tooLarge() { Array.prototype.indexOf.call({ length: 2 ** 40 }, 1); return 1; } };`,
      { timeout_ms: 500 },
    );
    expect(o.error?.code).toBe("timeout");
    expect(host.restarts).toBe(restarts + 1);
    expect(await act("export default 6 * 7;")).toMatchObject({ ok: true, result: 42 });
  });

  it("a Proxy result that hangs in its traps ends in timeout, and the worker serves the next", async () => {
    const o = await act(
      `export default new Proxy({}, { ownKeys() { Array.prototype.indexOf.call({ length: 2 ** 40 }, 1); return []; } });`,
      { timeout_ms: 500 },
    );
    expect(o.error?.code).toBe("timeout");
    expect(await act("export default 6 * 7;")).toMatchObject({ ok: true, result: 42 });
  });

  it("a replaced Promise.prototype.then (QuickJS's await calls it) ends in timeout", async () => {
    const o = await act(
      `${IMPORT} Promise.prototype.then = function () { for (;;) {} }; await workflows.list(); export default 1;`,
      { timeout_ms: 500 },
    );
    expect(o.error?.code).toBe("timeout");
    expect(await act("export default 6 * 7;")).toMatchObject({ ok: true, result: 42 });
  });

  it("an index accessor on Array.prototype (QuickJS's own JSON.stringify runs into it) ends in timeout", async () => {
    const o = await act(
      `Object.defineProperty(Array.prototype, "0", { get() { for (;;) {} }, set() { for (;;) {} } }); export default { a: 1 };`,
      { timeout_ms: 500 },
    );
    expect(o.error?.code).toBe("timeout");
    expect(await act("export default 6 * 7;")).toMatchObject({ ok: true, result: 42 });
  });

  it("an error whose message getter hangs ends in timeout, and the worker serves the next", async () => {
    const o = await act(
      `const e = new Error("x"); Object.defineProperty(e, "message", { get() { Array.prototype.indexOf.call({ length: 2 ** 40 }, 1); return "m"; } }); throw e;`,
      { timeout_ms: 500 },
    );
    expect(o.error?.code).toBe("timeout");
    expect(await act("export default 6 * 7;")).toMatchObject({ ok: true, result: 42 });
  });
});
