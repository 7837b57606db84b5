/**
 * Sandbox benchmark (`node --import tsx bench/sandbox.ts`), through the real worker thread:
 *
 * - cold start: a new worker thread, the wasm compiled and instantiated, the first action run;
 * - warm action start: one small action on a warm worker (fresh runtime + context + helpers + a facade
 *   linked, evaluated, serialised, disposed), as the worker times it; target median under 1 ms. The
 *   worker prepares the next fresh runtime and context while idle; the bench leaves it the idle time an
 *   agent's think time always gives (a few ms between actions) and prints what the preparation costs,
 *   and it also times actions sent back to back, where a runtime may still be in preparation;
 * - one capability call from the guest to an in-process no-op `invoke` (facade, bridge, worker
 *   boundary, dispatcher, the full ladder) against a bare host function call and a direct `invoke`,
 *   all measured in this run, so the ratios hold on any machine.
 *
 * Prints numbers; asserts nothing (targets live here, never in tests).
 */

import { callRouter } from "../server-bridge/calls/router.ts";
import { NodeSandboxHost } from "../server-bridge/sandbox/host.ts";
import { MODULE_NAMES } from "../shared/capabilities/table.ts";
import { headlessGate } from "../shared/gate/headless.ts";
import { createRun } from "../shared/gate/invoke.ts";

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const fmt = (ms: number) => (ms < 0.1 ? `${(ms * 1000).toFixed(2)} µs` : `${ms.toFixed(3)} ms`);

const run = createRun<unknown>({
  context: { user_id: "bench", session_id: "bench", run_id: "bench", signal: new AbortController().signal },
  gate: headlessGate("auto"),
  services: {},
  loadImpl: async () => async () => null,
  audit: () => {},
});
const router = callRouter({ run, mounted: MODULE_NAMES });
const base = { mounted: MODULE_NAMES, packs: [], router };

// Cold start.
const coldStarted = performance.now();
const host = await NodeSandboxHost.start();
await host.run("export default 1;", { ...base });
const cold = performance.now() - coldStarted;

// Warm action start: with idle time between actions (the next runtime is prepared ahead), and back to back.
const WARM_ACTION = `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows"; export default typeof workflows.get;`;
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
for (let i = 0; i < 50; i++) await host.run(WARM_ACTION, { ...base });
const warmTotal: number[] = [];
const warmSetup: number[] = [];
const prepare: number[] = [];
const roundTrip: number[] = [];
let preparedAhead = 0;
const backToBack: number[] = [];
for (let i = 0; i < 300; i++) {
  await pause();
  const t0 = performance.now();
  const { timings } = await host.run(WARM_ACTION, { ...base });
  roundTrip.push(performance.now() - t0);
  warmTotal.push(timings.total_ms);
  warmSetup.push(timings.setup_ms);
  prepare.push(timings.prepare_ms);
  if (timings.prepared_ahead) preparedAhead++;
}
for (let i = 0; i < 300; i++) {
  const t0 = performance.now();
  await host.run(WARM_ACTION, { ...base });
  backToBack.push(performance.now() - t0);
}

// One guest call, against baselines measured now.
const N = 2000;
const callsAction = (n: number) => `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
  for (let i = 0; i < ${n}; i++) await workflows.get("wf_1");
  export default ${n};`;
const withCalls: number[] = [];
const withoutCalls: number[] = [];
for (let i = 0; i < 5; i++) {
  withCalls.push((await host.run(callsAction(N), { ...base, limits: { max_calls: N } })).timings.total_ms);
  withoutCalls.push((await host.run(callsAction(0), { ...base })).timings.total_ms);
}
const perGuestCall = (median(withCalls) - median(withoutCalls)) / N;

const bare = async (x: unknown) => x;
let t = performance.now();
for (let i = 0; i < N * 50; i++) await bare(i);
const perBareCall = (performance.now() - t) / (N * 50);
t = performance.now();
for (let i = 0; i < N; i++) await run.invoke("get_workflow", { workflow_id: "wf_1" });
const perInvoke = (performance.now() - t) / N;

await host.dispose();

console.log("sandbox bench (Node worker thread, quickjs-wasmfile-release-sync)");
console.log(`  cold start (thread + wasm + first action):  ${fmt(cold)}`);
console.log(`  warm action start, median (in the worker):  ${fmt(median(warmTotal))}   [target < 1 ms]`);
console.log(`    of which binding the prepared runtime:   ${fmt(median(warmSetup))}`);
console.log(`    runtime + context + helpers, prepared while idle: ${fmt(median(prepare))}`);
console.log(`    actions whose runtime was ready ahead:    ${preparedAhead} of ${warmTotal.length}`);
console.log(`    host round trip incl. thread messages:   ${fmt(median(roundTrip))}`);
console.log(`  back to back (no idle time), round trip:    ${fmt(median(backToBack))}`);
console.log(`  one guest capability call (no-op invoke):   ${fmt(perGuestCall)}`);
console.log(
  `  direct run.invoke (same no-op, host):       ${fmt(perInvoke)}   guest call = ${(perGuestCall / perInvoke).toFixed(1)}x`,
);
console.log(
  `  bare host function call:                    ${fmt(perBareCall)}   guest call = ${(perGuestCall / perBareCall).toFixed(0)}x`,
);
