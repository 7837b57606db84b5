/**
 * Wires a SandboxHost to its two endpoints, identically for both entries: the worker's own endpoint,
 * where it exposes exactly `run`, `cancel` and `settle` (each argument parsed before use), and the
 * host's endpoint, where it calls `calls` through the bounded, terminable channel.
 */
import type { Endpoint } from "comlink";
import {
  CallSettlement,
  CancelRequest,
  HOST_API_NAMES,
  WORKER_API_NAMES,
  type WorkerApi,
} from "../../shared/protocol/worker.ts";
import { connectRemote, exposeAllowlisted } from "../../shared/sandbox/channel.ts";
import { SandboxHost, type SandboxHostOptions } from "./runtime.ts";

/** How long the worker waits for the host to acknowledge a batch (results come later, by `settle`). */
const CALLS_ACK_TIMEOUT_MS = 30_000;

export function serveSandbox(
  options: Omit<SandboxHostOptions, "sendCalls"> & { workerEndpoint: Endpoint; hostEndpoint: Endpoint },
): SandboxHost {
  const remote = connectRemote(options.hostEndpoint, HOST_API_NAMES, CALLS_ACK_TIMEOUT_MS);
  const host = new SandboxHost({
    ...options,
    sendCalls: async (batch) => {
      await remote.call("calls", batch);
    },
  });
  const api: WorkerApi = {
    run: (request) => host.run(request),
    cancel: async (request) => host.cancel(CancelRequest.parse(request).run_id),
    settle: async (settlement) => host.settle(CallSettlement.parse(settlement)),
    stats: async () => host.tidy(),
  };
  exposeAllowlisted(api, options.workerEndpoint, WORKER_API_NAMES);
  return host;
}
