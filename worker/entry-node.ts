/**
 * Node `worker_threads` entry (MCP and headless runs). Started by server-bridge/sandbox from its
 * esbuild bundle; `workerData` carries the host's port (for `calls`), the shared slice-watch buffer
 * and the module-wide limits. No Vite-only imports here: the wasm comes from the variant package's file.
 * Besides the allowlisted API it posts one kind of message of its own, `RuntimePrepared`, each time a
 * fresh runtime is ready for the next action (the first one doubles as "started").
 */
import { parentPort, workerData } from "node:worker_threads";
import variant from "@jitl/quickjs-wasmfile-release-sync";
import type { RuntimePrepared } from "../shared/protocol/worker.ts";
import { type NodePortLike, nodeEndpoint } from "../shared/sandbox/channel.ts";
import { sharedSliceWatch } from "./host/clock.ts";
import type { Limits } from "./host/limits.ts";
import { serveSandbox } from "./host/serve.ts";
import { compileNodeWasm } from "./node-wasm.ts";

interface NodeWorkerData {
  hostPort: NodePortLike;
  sliceBuffer?: SharedArrayBuffer;
  limits?: Partial<Limits>;
  wasmMaxBytes?: number;
}

if (!parentPort) throw new Error("entry-node must run as a worker thread");
const data = workerData as NodeWorkerData;
const host = serveSandbox({
  variant,
  wasm: compileNodeWasm,
  workerEndpoint: nodeEndpoint(parentPort as unknown as NodePortLike),
  hostEndpoint: nodeEndpoint(data.hostPort),
  yieldToHost: () => new Promise((resolve) => setImmediate(resolve)),
  whenIdle: (work) => setImmediate(work),
  onPrepared: (requests) => parentPort?.postMessage({ type: "prepared", requests } satisfies RuntimePrepared),
  ...(data.limits ? { limits: data.limits } : {}),
  ...(data.wasmMaxBytes ? { wasmMaxBytes: data.wasmMaxBytes } : {}),
  ...(data.sliceBuffer ? { sliceWatch: sharedSliceWatch(data.sliceBuffer) } : {}),
});
// Pay the cold start (instantiate the wasm, prepare the first runtime) before the first action arrives.
void host.warm();
