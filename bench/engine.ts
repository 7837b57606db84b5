/**
 * The workflow engine's per-node overhead on a 1,000-node chain and a 1,000-node fan-out, against
 * calling the same node functions directly, in the same order, in the same process. Three levels:
 *   scheduler  executePlan over a ready plan (dependency counting, input wiring, records, progress hooks)
 *   plan+run   planGraph (validation, types, literals) then executePlan
 *   job        workflows.run_workflow through run.invoke on a real SQLite store and event bus, in auto
 *              mode: zod validation of the graph, the job row, its job-scoped run, flushes, events
 *
 *   node --import tsx bench/engine.ts [rounds]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServices } from "../server-bridge/app.ts";
import { LOCAL_USER } from "../server-bridge/auth/tokens.ts";
import { configFromEnv } from "../server-bridge/config.ts";
import { EXECUTORS } from "../server-bridge/engine/executors/index.ts";
import { type Plan, planGraph } from "../server-bridge/engine/plan.ts";
import { executePlan } from "../server-bridge/engine/scheduler.ts";
import type { NodeContext, NodeOutputs } from "../server-bridge/engine/types.ts";
import type { Graph } from "../shared/graph/document.ts";

const ROUNDS = Number(process.argv[2] ?? 15);
const N = 1000;

const nodeAt = (id: string, type: string, data: Record<string, unknown>) => ({
  id,
  type,
  data,
  position: { x: 0, y: 0 },
});
const wire = (i: number, source: string, target: string, targetHandle: string) => ({
  id: `e${i}`,
  source,
  sourceHandle: "output",
  target,
  targetHandle,
});

/** constant.number -> math.add -> math.add -> ... (N nodes in one line). */
function chain(): Graph {
  const nodes = [nodeAt("n0", "constant.number", { value: 0 })];
  const edges = [];
  for (let i = 1; i < N; i++) {
    nodes.push(nodeAt(`n${i}`, "math.add", { b: 1 }));
    edges.push(wire(i, `n${i - 1}`, `n${i}`, "a"));
  }
  return { nodes, edges };
}

/** One constant.number read by N - 1 independent math.add nodes. */
function fanOut(): Graph {
  const nodes = [nodeAt("n0", "constant.number", { value: 0 })];
  const edges = [];
  for (let i = 1; i < N; i++) {
    nodes.push(nodeAt(`n${i}`, "math.add", { b: i }));
    edges.push(wire(i, "n0", `n${i}`, "a"));
  }
  return { nodes, edges };
}

const ctx: NodeContext = {
  signal: new AbortController().signal,
  invoke: async () => ({ ok: false, error: { code: "capability_unavailable", message: "none in the bench" } }),
  workflowInputs: {},
  data: {},
};
const constant = EXECUTORS.get("constant.number");
const add = EXECUTORS.get("math.add");
if (!constant || !add) throw new Error("executors missing");

let sink = 0;
/** The node functions called directly: what the engine's work is compared against. */
function direct(shape: "chain" | "fan-out"): number {
  const started = performance.now();
  const first = constant?.({ value: 0 }, ctx) as NodeOutputs;
  let last = first.output as number;
  for (let i = 1; i < N; i++) {
    const out = add?.(
      { a: shape === "chain" ? last : (first.output as number), b: shape === "chain" ? 1 : i },
      ctx,
    ) as NodeOutputs;
    last = out.output as number;
  }
  sink += last;
  return performance.now() - started;
}

function planOf(graph: Graph): Plan {
  const planned = planGraph(graph);
  if (!planned.ok) throw new Error(JSON.stringify(planned.problems.slice(0, 3)));
  return planned.plan;
}

async function scheduler(plan: Plan, withPlanning?: Graph): Promise<number> {
  const started = performance.now();
  const ready = withPlanning ? planOf(withPlanning) : plan;
  let events = 0;
  const result = await executePlan(ready, {
    signal: new AbortController().signal,
    concurrency: 4,
    nodeTimeoutMs: 60_000,
    invoke: ctx.invoke,
    workflowInputs: {},
    onNodeStart: () => events++,
    onNodeEnd: () => events++,
  }).result;
  if (result.status !== "completed" || events !== 2 * N) throw new Error(`run ${result.status}`);
  return performance.now() - started;
}

const dataDir = mkdtempSync(join(tmpdir(), "nt-bench-"));
const app = await createServices(configFromEnv({}, { dataDir }), () => {});
const session = await app.sessions.create(LOCAL_USER, { mode: "auto" });
const live = await app.runs.start(LOCAL_USER, session.sessionId);

async function job(graph: Graph): Promise<number> {
  const started = performance.now();
  const result = await live.run.invoke("run_workflow", { graph, wait_ms: 55_000 });
  if (!result.ok || (result.value as { status: string }).status !== "completed") {
    throw new Error(`job did not complete: ${JSON.stringify(result).slice(0, 300)}`);
  }
  return performance.now() - started;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

console.log(
  `workflow engine vs node functions called directly: ${N} nodes, node ${process.version}, median of ${ROUNDS} rounds`,
);
for (const [shape, graph] of [
  ["chain", chain()],
  ["fan-out", fanOut()],
] as const) {
  const plan = planOf(graph);
  const times: Record<"direct" | "scheduler" | "plan+run" | "job", number[]> = {
    direct: [],
    scheduler: [],
    "plan+run": [],
    job: [],
  };
  for (let round = -2; round < ROUNDS; round++) {
    const d = direct(shape);
    const s = await scheduler(plan);
    const p = await scheduler(plan, graph);
    const j = await job(graph);
    if (round < 0) continue; // warm-up
    times.direct.push(d);
    times.scheduler.push(s);
    times["plan+run"].push(p);
    times.job.push(j);
  }
  const base = median(times.direct);
  console.log(`\n${shape} (${N} nodes)`);
  console.log(`  direct      ${((base * 1000) / N).toFixed(3).padStart(8)} µs/node`);
  for (const level of ["scheduler", "plan+run", "job"] as const) {
    const t = median(times[level]);
    const overhead = ((t - base) * 1000) / N;
    console.log(
      `  ${level.padEnd(10)}  ${((t * 1000) / N).toFixed(3).padStart(8)} µs/node  overhead ${overhead.toFixed(3).padStart(8)} µs/node  ratio ${(t / base).toFixed(1)}x`,
    );
  }
}

await app.runs.endAll();
await app.audit.flush();
await app.store.dispose();
rmSync(dataDir, { recursive: true, force: true });
if (sink === 0) console.log("(unreachable: keeps the direct calls' work observable)");
