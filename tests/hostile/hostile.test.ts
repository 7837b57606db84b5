/**
 * Hostile guests, through the real worker thread (watchdog, termination, replacement). Each case
 * asserts the contained outcome and that the host then serves the next action, and ends with a leak
 * check: the worker freed every runtime it used (QuickJS aborts freeing one with an object still alive).
 */

import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CallRouter, GuestCall } from "../../server-bridge/calls/router.ts";
import { defaultLibrary } from "../../server-bridge/packs/index.ts";
import { NodeSandboxHost } from "../../server-bridge/sandbox/host.ts";
import { MODULE_NAMES } from "../../shared/capabilities/table.ts";
import type { InvokeResult } from "../../shared/capabilities/types.ts";
import { headlessGate } from "../../shared/gate/headless.ts";
import type { LimitOverrides } from "../../shared/protocol/worker.ts";
import { actionContract, GUEST_GLOBALS } from "../../shared/sandbox/contract.ts";
import { MAX_RESULT_CHARS } from "../../shared/sandbox/limits.ts";
import { memoryRouter, memoryRun } from "../sandbox/harness.ts";
import { expectNoLeak } from "./leak-check.ts";

const WF = `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";`;
let host: NodeSandboxHost;
const { run } = memoryRun({ gate: headlessGate("auto") });
const normal = memoryRouter(run);

beforeAll(async () => {
  host = await NodeSandboxHost.start({ graceMs: 300 });
});
afterAll(async () => {
  await host.dispose();
});
afterEach(async () => {
  await expectNoLeak(host);
});

async function act(
  action: string,
  options: { router?: CallRouter; limits?: LimitOverrides; signal?: AbortSignal } = {},
) {
  const { observation } = await host.run(action, {
    mounted: MODULE_NAMES,
    packs: defaultLibrary().packInfo(),
    router: options.router ?? normal,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return observation;
}

async function expectServesNext(): Promise<void> {
  const next = await act(`${WF} const w = await workflows.list(); export default 6 * 7;`);
  expect(next).toMatchObject({ ok: true, result: 42 });
}

const SHORT = { timeout_ms: 300 };

describe("time", () => {
  it("while(1){} times out", async () => {
    expect((await act(`while (1) {}`, { limits: SHORT })).error?.code).toBe("timeout");
    await expectServesNext();
  });

  it("a loop inside .then times out", async () => {
    const o = await act(`Promise.resolve().then(() => { for (;;) {} }); export default await new Promise(() => {});`, {
      limits: SHORT,
    });
    expect(o.error?.code).toBe("timeout");
    await expectServesNext();
  });

  it("a native operation with no interrupt check is stopped by the watchdog, and the worker replaced", async () => {
    const restarts = host.restarts;
    const o = await act(`export default Array.prototype.indexOf.call({ length: 2 ** 40 }, 1);`, { limits: SHORT });
    expect(o.error?.code).toBe("timeout");
    expect(host.restarts).toBe(restarts + 1);
    await expectServesNext();
  });

  it("a loop stopped by the interrupt while a call is still pending ends in timeout, not as the action's error", async () => {
    const slow: CallRouter = (calls) =>
      calls.map(() => new Promise<InvokeResult>((resolve) => setTimeout(() => resolve({ ok: true, value: 1 }), 2000)));
    const o = await act(`${WF} const pending = workflows.list(); await null; for (;;) {}`, {
      router: slow,
      limits: { timeout_ms: 300 },
    });
    expect(o.error?.code).toBe("timeout");
    await expectServesNext();
  });

  it("a cancel stops a synchronous loop at once (through shared memory), and the worker serves the next", async () => {
    const stop = new AbortController();
    // The call shows the action is running; the loop after it never yields to the worker's messages.
    const started: CallRouter = (calls, signal) => {
      setImmediate(() => stop.abort());
      return normal(calls, signal);
    };
    const restarts = host.restarts;
    const o = await act(`${WF} await workflows.list(); for (;;) {}`, {
      router: started,
      limits: { timeout_ms: 60_000 },
      signal: stop.signal,
    });
    expect(o.error?.code).toBe("cancelled");
    expect(host.restarts).toBe(restarts);
    await expectServesNext();
  });

  it("a promise-job flood times out", async () => {
    const o = await act(
      `function f() { Promise.resolve().then(f); } f(); export default await new Promise(() => {});`,
      { limits: SHORT },
    );
    expect(o.error?.code).toBe("timeout");
    await expectServesNext();
  });
});

describe("memory and stack", () => {
  it("unbounded recursion hits the stack limit", async () => {
    const o = await act(`function f() { return f() + 1; } export default f();`);
    expect(o.error?.code).toBe("memory_limit");
    await expectServesNext();
  });

  it("cumulative allocation hits the memory limit", async () => {
    const o = await act(`const a = []; for (;;) a.push(new Array(100000).fill(1));`);
    expect(o.error?.code).toBe("memory_limit");
    await expectServesNext();
  });

  it("a single huge allocation hits the memory limit", async () => {
    const o = await act(`export default new Uint8Array(1024 * 1024 * 1024).length;`);
    expect(o.error?.code).toBe("memory_limit");
    await expectServesNext();
  });
});

describe("calls at the edges of a run", () => {
  it("a call after the deadline never reaches the host; the one in flight is aborted", async () => {
    const seen: GuestCall[] = [];
    const signals: AbortSignal[] = [];
    const slow: CallRouter = (calls, signal) => {
      seen.push(...calls);
      signals.push(signal);
      return calls.map(
        () => new Promise<InvokeResult>((resolve) => setTimeout(() => resolve({ ok: true, value: 1 }), 600)),
      );
    };
    const o = await act(`${WF} await workflows.list(); await workflows.list(); export default 1;`, {
      router: slow,
      limits: { timeout_ms: 200, approval_credit_ms: 0 },
    });
    expect(o.error?.code).toBe("timeout");
    expect(seen).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);
    await expectServesNext();
  });

  it("calls issued after the result settled are never sent", async () => {
    const seen: GuestCall[] = [];
    const spy: CallRouter = (calls, signal) => {
      seen.push(...calls);
      return normal(calls, signal);
    };
    const o = await act(
      `${WF} (async () => { for (let i = 0; i < 50; i++) await null; await workflows.create("late"); })(); export default "done";`,
      { router: spy },
    );
    expect(o).toMatchObject({ ok: true, result: "done" });
    expect(seen).toHaveLength(0);
    await expectServesNext();
  });
});

describe("lifetimes: every runtime is freed, whatever was pending when the action ended", () => {
  const slow =
    (ms: number): CallRouter =>
    (calls) =>
      calls.map(() => new Promise<InvokeResult>((resolve) => setTimeout(() => resolve({ ok: true, value: 1 }), ms)));

  it.each([
    [
      "a timeout with 200 calls in flight",
      `${WF} for (let i = 0; i < 200; i++) workflows.list(); for (;;) await null;`,
      "timeout",
    ],
    [
      "a deadlock once 200 calls settled",
      `${WF} for (let i = 0; i < 200; i++) workflows.list(); await new Promise(() => {});`,
      "action_failed",
    ],
    [
      "a throw with calls in flight",
      `${WF} workflows.list(); workflows.list(); throw new Error("x");`,
      "action_failed",
    ],
    ["a result while a call is in flight (settled after the end)", `${WF} workflows.list(); export default 1;`, "ok"],
    [
      "a result too large with a call in flight",
      `${WF} workflows.list(); export default "x".repeat(3e6);`,
      "result_too_large",
    ],
    ["a stack overflow inside console.log", `function f() { console.log(1); f(); } f();`, "memory_limit"],
    [
      // Whatever it ends with (the guest can no longer allocate even its results), it ends.
      "calls made after memory is exhausted",
      `${WF} const keep = []; try { for (;;) keep.push({ at: keep.length }); } catch {}
      const all = []; for (let i = 0; i < 100; i++) all.push(workflows.list());
      export default (await Promise.allSettled(all)).length;`,
      "failed",
    ],
  ])("%s", async (_label, action, outcome) => {
    const o = await act(action, { router: slow(100), limits: { timeout_ms: 2000, approval_credit_ms: 0 } });
    expect(o.ok ? "ok" : outcome === "failed" ? "failed" : o.error?.code).toBe(outcome);
    // Let late settlements arrive at a worker whose action is over.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await expectServesNext();
  });

  it("refuses arguments that would put more than 64 MiB of JSON in flight, without copying them out", async () => {
    const o = await act(
      `${WF} const big = "x".repeat(30_000_000);
      const calls = [workflows.create({ name: big }), workflows.create({ name: big }), workflows.create({ name: big })];
      export default (await Promise.allSettled(calls)).map((c) => c.status === "fulfilled" ? "ok" : c.reason.code);`,
      { router: slow(50), limits: { memory_bytes: 200 << 20 } },
    );
    expect(o.result).toEqual(["ok", "ok", "invalid_call"]);
    await expectServesNext();
  });
});

describe("reaching outside the guest", () => {
  it("the Function constructor reaches only the guest's own global", async () => {
    const o = await act(`const g = (() => {}).constructor("return this")();
      export default { same: g === globalThis, process: typeof g.process, require: typeof g.require,
        host: typeof g.__nodetool_host, fetch: typeof g.fetch, worker: typeof g.postMessage };`);
    expect(o.result).toEqual({
      same: true,
      process: "undefined",
      require: "undefined",
      host: "undefined",
      fetch: "undefined",
      worker: "undefined",
    });
    await expectServesNext();
  });

  it("the guest's global names are exactly the expected set", async () => {
    const o = await act(`export default Object.getOwnPropertyNames(globalThis).sort();`);
    expect(o.result).toMatchSnapshot();
  });

  it("beyond ECMAScript's own (a bare QuickJS context's), the globals are exactly those the contract names", async () => {
    const module = await newQuickJSWASMModuleFromVariant(variant);
    const bare = module.newContext();
    const names = bare.unwrapResult(bare.evalCode("Object.getOwnPropertyNames(globalThis)"));
    const ecmascript = new Set(bare.dump(names) as string[]);
    names.dispose();
    bare.dispose();
    const o = await act(`export default Object.getOwnPropertyNames(globalThis);`);
    const added = (o.result as string[]).filter((name) => !ecmascript.has(name));
    expect(added.sort()).toEqual([...GUEST_GLOBALS].sort());
    const contract = actionContract({ mounted: ["workflows"], packs: [] });
    for (const name of GUEST_GLOBALS) expect(contract, name).toContain(name);
    await expectServesNext();
  });

  it("a result exactly at the contract's cap is returned whole; one character more is result_too_large", async () => {
    // JSON of a string: its characters and two quotes.
    const at = await act(`export default "x".repeat(${MAX_RESULT_CHARS - 2});`);
    expect(at).toMatchObject({ ok: true });
    expect(at.truncated).toBeUndefined();
    expect((at.result as string).length).toBe(MAX_RESULT_CHARS - 2);
    const over = await act(`export default "x".repeat(${MAX_RESULT_CHARS - 1});`);
    expect(over.error?.code).toBe("result_too_large");
    await expectServesNext();
  });

  it("the private bridge cannot be imported, statically or dynamically", async () => {
    const stat = await act(`import { call } from "nodetool:bridge"; export default 1;`);
    expect(stat.error?.code).toBe("import_refused");
    const dyn = await act(`const name = "nodetool:" + "bridge"; export default await import(name);`);
    expect(dyn.error?.code).toBe("import_refused");
    await expectServesNext();
  });
});

describe("values across the boundary", () => {
  it("returned JSON with __proto__ pollutes nothing in the guest", async () => {
    const evil: CallRouter = (calls) =>
      calls.map(async () => ({ ok: true as const, value: JSON.parse('{"__proto__": {"polluted": 1}, "a": 1}') }));
    const o = await act(
      `${WF} const v = await workflows.list();
      export default { own: Object.keys(v), polluted: ({}).polluted === undefined, proto: Object.getPrototypeOf(v) === Object.prototype };`,
      { router: evil },
    );
    expect(o.result).toEqual({ own: ["__proto__", "a"], polluted: true, proto: true });
    await expectServesNext();
  });

  it("args with __proto__ reach the host as null-prototype data and pollute nothing", async () => {
    let received: unknown;
    const spy: CallRouter = (calls) =>
      calls.map(async (call) => {
        received = call.args[0];
        return { ok: true as const, value: null };
      });
    await act(
      `${WF} await workflows.list(JSON.parse('{"__proto__": {"admin": true}, "limit": 1}')); export default 1;`,
      { router: spy },
    );
    expect(Object.getPrototypeOf(received)).toBeNull();
    expect(Object.keys(received as object)).toEqual(["__proto__", "limit"]);
    expect(({} as { admin?: boolean }).admin).toBeUndefined();
    await expectServesNext();
  });

  it.each([
    [
      "an Error with a cause",
      () => Promise.reject(new Error("secret /srv/db.sqlite", { cause: new Error("password=hunter2") })),
    ],
    ["an AggregateError", () => Promise.reject(new AggregateError([new Error("secret-a")], "secret-b"))],
    ["null", () => Promise.reject(null)],
    ["a string", () => Promise.reject("secret string")],
    [
      "a throw",
      () => {
        throw new Error("secret sync");
      },
    ],
  ])("a host rejection with %s leaks nothing to the guest", async (_label, reject) => {
    const failing: CallRouter = (calls) => calls.map(() => (reject as () => Promise<InvokeResult>)());
    const o = await act(
      `${WF} try { await workflows.list(); } catch (e) {
        v = { code: e.code, text: JSON.stringify({ m: e.message, s: String(e.stack), c: String(e.cause), k: Object.keys(e) }) }; }
      var v; export default v;`,
      { router: failing },
    );
    const result = o.result as { code: string; text: string };
    expect(result.code).toBe("capability_failed");
    expect(result.text).not.toMatch(/secret|hunter2|srv|password/);
    await expectServesNext();
  });

  it.each([
    ["huge", `"x".repeat(2 * 1024 * 1024)`, "result_too_large"],
    ["cyclic", `(() => { const a = {}; a.self = a; return a; })()`, "action_failed"],
    ["BigInt", `10n`, "action_failed"],
    ["Symbol", `Symbol("s")`, "action_failed"],
    ["function", `() => 1`, "action_failed"],
    ["throwing getter", `({ get x() { throw new Error("boom"); } })`, "action_failed"],
    ["toJSON loop", `(() => { const o = { toJSON() { return o; } }; return o; })()`, "action_failed"],
    ["toJSON chain", `(() => { const mk = () => ({ toJSON: mk }); return mk(); })()`, "action_failed"],
  ])("a %s result is refused with a typed error", async (_label, expr, code) => {
    const o = await act(`export default ${expr};`);
    expect(o.ok).toBe(false);
    expect(o.error?.code).toBe(code);
    if (code === "action_failed") expect(o.error?.message).toMatch(/^The result cannot be returned: result/);
    await expectServesNext();
  });
});
