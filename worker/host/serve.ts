/**
 * Wires a SandboxHost to its two endpoints, identically for both entries: the worker's own endpoint,
 * where it exposes exactly `run`, `cancel` and `stats` (each argument parsed before use) and hears the
 * host's one-way `settle` messages (parsed too), and the host's endpoint, where it posts each batch of
 * guest calls as a one-way `calls` message (the results come back by `settle`; nothing acknowledges).
 */
import type { Endpoint } from "comlink";
import { CallSettlement, CancelRequest, WORKER_API_NAMES, type WorkerApi } from "../../shared/protocol/worker.ts";
import { exposeAllowlisted } from "../../shared/sandbox/channel.ts";
import { SandboxHost, type SandboxHostOptions } from "./runtime.ts";

export function serveSandbox(
  options: Omit<SandboxHostOptions, "sendCalls"> & { workerEndpoint: Endpoint; hostEndpoint: Endpoint },
): SandboxHost {
  const host = new SandboxHost({ ...options, sendCalls: (batch) => options.hostEndpoint.postMessage(batch) });
  const api: WorkerApi = {
    run: (request) => host.run(request),
    cancel: async (request) => host.cancel(CancelRequest.parse(request).run_id),
    stats: async () => host.tidy(),
  };
  exposeAllowlisted(api, options.workerEndpoint, WORKER_API_NAMES);
  // Comlink never sees these: its endpoint accepts only allowlisted APPLY messages.
  options.workerEndpoint.addEventListener("message", ((event: MessageEvent) => {
    if ((event.data as { type?: unknown } | null)?.type !== "settle") return;
    const parsed = CallSettlement.safeParse(event.data);
    if (parsed.success) host.settle(parsed.data);
    else console.warn("the host sent a malformed settlement; refused", parsed.error.issues.slice(0, 3));
  }) as EventListener);
  return host;
}
