/**
 * The Node sandbox's side of the worker channel: a batch of guest calls goes through the call router
 * (server-bridge/calls/router.ts), and each result is settled as soon as it completes; results
 * finishing in the same tick travel together, so a call waiting on an approval holds back no other.
 */
import type { CallBatch, CallSettlement, WireCallResult } from "../../shared/protocol/worker.ts";
import { type CallRouter, serveCalls } from "../calls/router.ts";

export function serveBatch(options: {
  batch: CallBatch;
  router: CallRouter;
  signal: AbortSignal;
  settle(settlement: CallSettlement): void;
}): void {
  const { batch } = options;
  let queued: WireCallResult[] = [];
  serveCalls(batch.calls, options.router, options.signal, (result) => {
    queued.push(result);
    if (queued.length > 1) return;
    queueMicrotask(() => {
      const results = queued;
      queued = [];
      options.settle({ type: "settle", run_id: batch.run_id, results });
    });
  });
}
