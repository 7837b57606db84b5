/**
 * Sandbox benchmark (`npm run bench:sandbox`), through real worker threads:
 *
 * - the baseline, measured in this run: a bare QuickJS context created, `1 + 1` evaluated, the
 *   context disposed (one runtime reused), in this thread, with no sandbox around it;
 * - back to back: trivial actions (`export default 1`) sent one after another with no idle time,
 *   through the pool (SANDBOX_WORKERS workers, default the cores, at least 2), round trip as the caller
 *   sees it. Target: at most 0.8 ms. The pool keeps a prepared runtime ready per worker and gives an
 *   action to a worker whose runtime is ready, so back-to-back actions do not wait for one;
 * - the same through a single worker (where each action after the first waits for the runtime the
 *   last one left being prepared), and with an agent's think time between actions;
 * - the floor of a fresh runtime per action (runtime + context made and freed) and what preparing one
 *   costs in the worker (the work back-to-back actions on a busy pool wait for);
 * - cold start, and one capability call from the guest to an in-process no-op `invoke` against a bare
 *   host function call and a direct `invoke`.
 *
 * Prints numbers; asserts nothing (targets live here, never in tests).
 */

import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { callRouter } from "../server-bridge/calls/router.ts";
import { NodeSandboxHost } from "../server-bridge/sandbox/host.ts";
import { defaultWorkers, SandboxPool } from "../server-bridge/sandbox/pool.ts";
import { MODULE_NAMES } from "../shared/capabilities/table.ts";
import { headlessGate } from "../shared/gate/headless.ts";
import { createRun } from "../shared/gate/invoke.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 500);
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const fmt = (ms: number) => (ms < 0.1 ? `${(ms * 1000).toFixed(2)} µs` : `${ms.toFixed(3)} ms`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Median wall time of `fn`, after as many warm-up rounds (the wasm tiers up only after a while). */
async function timed(fn: () => Promise<unknown> | unknown, rounds = ROUNDS, between?: () => Promise<unknown>) {
  for (let i = 0; i < rounds; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    if (between) await between();
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** The baseline: bare QuickJS, a context made, one expression evaluated, the context disposed. */
export async function bareQuickJsMs(rounds = ROUNDS * 4): Promise<number> {
  const module = await newQuickJSWASMModuleFromVariant(variant);
  const runtime = module.newRuntime();
  const ms = await timed(() => {
    const context = runtime.newContext();
    const result = context.evalCode("1 + 1");
    if (result.error) result.error.dispose();
    else result.value.dispose();
    context.dispose();
  }, rounds);
  runtime.dispose();
  return ms;
}

/** The floor of a fresh runtime per action: a runtime and a context made and freed, nothing evaluated. */
async function freshRuntimeMs(rounds = ROUNDS * 4): Promise<number> {
  const module = await newQuickJSWASMModuleFromVariant(variant);
  return timed(() => {
    const runtime = module.newRuntime();
    runtime.newContext().dispose();
    runtime.dispose();
  }, rounds);
}

const run = createRun<unknown>({
  context: { user_id: "bench", session_id: "bench", run_id: "bench", signal: new AbortController().signal },
  gate: headlessGate("auto"),
  services: {},
  loadImpl: async () => async () => null,
  audit: () => {},
});
const router = callRouter({ run, mounted: MODULE_NAMES });
const base = { mounted: MODULE_NAMES, packs: [], router };
const TRIVIAL = "export default 1;";

async function main(): Promise<void> {
  const bare = await bareQuickJsMs();
  const fresh = await freshRuntimeMs();

  const coldStarted = performance.now();
  const single = await NodeSandboxHost.start();
  await single.run(TRIVIAL, base);
  const cold = performance.now() - coldStarted;

  const workers = Number(process.env.SANDBOX_WORKERS ?? defaultWorkers());
  const pool = new SandboxPool({ workers });
  await pool.warm();
  const poolBackToBack = await timed(() => pool.run(TRIVIAL, { ...base, user: "bench" }));
  const singleBackToBack = await timed(() => single.run(TRIVIAL, base));
  const singleIdle = await timed(
    () => single.run(TRIVIAL, base),
    ROUNDS / 2,
    () => pause(3),
  );
  let prepared = 0;
  const inWorker: number[] = [];
  const preparation: number[] = [];
  for (let i = 0; i < ROUNDS / 2; i++) {
    await pause(3);
    const { timings } = await single.run(TRIVIAL, base);
    inWorker.push(timings.total_ms);
    preparation.push(timings.prepare_ms);
    if (timings.prepared_ahead) prepared++;
  }

  // One guest call, against baselines measured now.
  const N = 2000;
  const callsAction = (n: number) => `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
    for (let i = 0; i < ${n}; i++) await workflows.get("wf_1");
    export default ${n};`;
  const withCalls: number[] = [];
  const withoutCalls: number[] = [];
  for (let i = 0; i < 5; i++) {
    withCalls.push((await single.run(callsAction(N), { ...base, limits: { max_calls: N } })).timings.total_ms);
    withoutCalls.push((await single.run(callsAction(0), base)).timings.total_ms);
  }
  const perGuestCall = (median(withCalls) - median(withoutCalls)) / N;
  const bareCall = async (x: unknown) => x;
  let t = performance.now();
  for (let i = 0; i < N * 50; i++) await bareCall(i);
  const perBareCall = (performance.now() - t) / (N * 50);
  t = performance.now();
  for (let i = 0; i < N; i++) await run.invoke("get_workflow", { workflow_id: "wf_1" });
  const perInvoke = (performance.now() - t) / N;

  await single.dispose();
  await pool.dispose();

  console.log("sandbox bench (Node worker threads, quickjs-wasmfile-release-sync)");
  console.log(`  bare QuickJS context create + eval + dispose (baseline):  ${fmt(bare)}`);
  console.log(
    `  back to back through the pool (${workers} workers), round trip:   ${fmt(poolBackToBack)}   = ${(poolBackToBack / bare).toFixed(1)}x bare   [target <= 0.8 ms]`,
  );
  console.log(`  back to back on a single worker, round trip:             ${fmt(singleBackToBack)}`);
  console.log(`  with 3 ms between actions, single worker, round trip:    ${fmt(singleIdle)}`);
  console.log(`    of which in the worker:                                 ${fmt(median(inWorker))}`);
  console.log(`    actions whose runtime was prepared ahead:               ${prepared} of ${inWorker.length}`);
  console.log(`    preparing a runtime (in the worker, ahead of the action):  ${fmt(median(preparation))}`);
  console.log(`  floor: a fresh runtime + context made and freed:          ${fmt(fresh)}`);
  console.log(`  cold start (thread + wasm + first action):               ${fmt(cold)}`);
  console.log(`  one guest capability call (no-op invoke):                ${fmt(perGuestCall)}`);
  console.log(
    `  direct run.invoke (same no-op, host):                     ${fmt(perInvoke)}   guest call = ${(perGuestCall / perInvoke).toFixed(1)}x`,
  );
  console.log(
    `  bare host function call:                                  ${fmt(perBareCall)}   guest call = ${(perGuestCall / perBareCall).toFixed(0)}x`,
  );
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await main();
