/**
 * The in-process cost of `run.invoke` for a read capability (lookup, normalise, validate, decide, and
 * the lazy-load hop) against calling the same implementation directly. The audit sink is a no-op, so
 * audit writes are excluded; the store is not involved. Target: under 10 microseconds of overhead per call.
 *
 *   node --import tsx bench/invoke.ts [calls-per-round] [rounds]
 */
import { findSpec } from "../shared/capabilities/table.ts";
import { headlessGate } from "../shared/gate/headless.ts";
import { type CapabilityImpl, createRun } from "../shared/gate/invoke.ts";

const CALLS = Number(process.argv[2] ?? 200_000);
const ROUNDS = Number(process.argv[3] ?? 7);
const WARMUP = 50_000;
const TARGET_US = 10;

const CAPABILITY = "list_workflows";
const ARGS = { limit: 20, offset: 0 };

if (findSpec(CAPABILITY)?.category !== "read") throw new Error(`${CAPABILITY} must be a read capability in the table`);

const rows = [{ id: "wf_1", name: "Invoices", version: 3 }];
let sink = 0;
const impl: CapabilityImpl<Record<string, never>> = async (_run, args: { limit: number }) => {
  sink += args.limit;
  return rows;
};
const loaded = Promise.resolve(impl);

const run = createRun({
  context: { user_id: "bench", session_id: "bench", run_id: "bench", signal: new AbortController().signal },
  gate: headlessGate("default"),
  services: {},
  loadImpl: () => loaded,
  audit: () => {},
});

async function viaInvoke(n: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const result = await run.invoke(CAPABILITY, ARGS);
    if (!result.ok) throw new Error(`invoke failed: ${result.error.code} ${result.error.message}`);
  }
  return performance.now() - started;
}

async function direct(n: number): Promise<number> {
  const started = performance.now();
  const call = { credit: () => {} };
  for (let i = 0; i < n; i++) await impl(run, ARGS as never, call);
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

await viaInvoke(WARMUP);
await direct(WARMUP);

const invokeMs: number[] = [];
const directMs: number[] = [];
const overheadUs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const a = await viaInvoke(CALLS);
  const b = await direct(CALLS);
  invokeMs.push(a);
  directMs.push(b);
  overheadUs.push(((a - b) * 1000) / CALLS);
}

const perInvoke = (median(invokeMs) * 1000) / CALLS;
const perDirect = (median(directMs) * 1000) / CALLS;
const overhead = median(overheadUs);
const met = overhead < TARGET_US;

console.log(`run.invoke("${CAPABILITY}") vs the implementation called directly (audit excluded: no-op sink)`);
console.log(
  `  node ${process.version}, ${CALLS} calls per round, median of ${ROUNDS} rounds after ${WARMUP} warm-up calls`,
);
console.log(`  invoke:   ${perInvoke.toFixed(3)} µs/call`);
console.log(`  direct:   ${perDirect.toFixed(3)} µs/call`);
console.log(`  ratio:    ${(perInvoke / perDirect).toFixed(1)}x`);
console.log(`  overhead: ${overhead.toFixed(3)} µs/call (rounds: ${overheadUs.map((o) => o.toFixed(2)).join(", ")})`);
console.log(`  target:   < ${TARGET_US} µs overhead per call: ${met ? "met" : "NOT met"}`);
if (sink === 0) console.log("(unreachable: keeps the implementation's work observable)");
