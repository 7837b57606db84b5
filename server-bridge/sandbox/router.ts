/**
 * Serving the guest's calls on the host side. A batch from the worker is decoded (boundary encoding ->
 * null-prototype plain data, `Uint8Array`, `AssetRef`), handed to the caller's router, and each result
 * is encoded and settled on its own as soon as it completes (results finishing in the same tick travel
 * together), so a call waiting on an approval holds back no other.
 *
 * Nothing from the host leaks to the guest: a router that throws or rejects (with anything: an Error
 * with a cause, an AggregateError, null, a string) yields a fixed `capability_failed` message.
 */

import { PACK_PREFIX } from "../../shared/capabilities/table.ts";
import type { InvokeResult } from "../../shared/capabilities/types.ts";
import type { CapabilityRun } from "../../shared/gate/invoke.ts";
import { FailurePayload, failure } from "../../shared/protocol/errors.ts";
import { fromWire, toWire } from "../../shared/protocol/values.ts";
import type { CallBatch, CallSettlement, WireCallResult } from "../../shared/protocol/worker.ts";
import { dispatch } from "../../shared/sandbox/dispatch.ts";
import type { LibraryDispatcher } from "../packs/dispatch.ts";

/** One guest call as the host sees it: args decoded, export as the guest named it. */
export interface GuestCall {
  call_id: string;
  module: string;
  export: string;
  args: unknown[];
}

/** What the host supplies to serve calls: one promise per call, in order. */
export type CallRouter = (calls: readonly GuestCall[], signal: AbortSignal) => ReadonlyArray<Promise<InvokeResult>>;

/** The usual router: capability modules through `dispatch` -> `run.invoke`, packs through the library. */
export function sandboxRouter(options: {
  run: CapabilityRun<unknown>;
  mounted: readonly string[];
  library?: LibraryDispatcher;
  allowedPacks?: readonly string[];
}): CallRouter {
  return (calls) =>
    calls.map((call) => {
      if (call.module.startsWith(PACK_PREFIX)) {
        if (!options.library) {
          return Promise.resolve({
            ok: false,
            error: failure("unknown_module", `Library packs are not available here ("${call.module}").`),
          });
        }
        return options.library.dispatch(call, options.allowedPacks);
      }
      return dispatch(options.run, options.mounted, call);
    });
}

const UNEXPECTED =
  "The capability failed unexpectedly on the host; nothing more is known. Retry once, then try another way.";

/** Serves one batch: decode, route, encode, settle each result as it completes. */
export function serveBatch(options: {
  batch: CallBatch;
  router: CallRouter;
  signal: AbortSignal;
  settle(settlement: CallSettlement): void;
}): void {
  const { batch } = options;
  let queued: WireCallResult[] = [];
  const push = (result: WireCallResult) => {
    queued.push(result);
    if (queued.length > 1) return;
    queueMicrotask(() => {
      const results = queued;
      queued = [];
      options.settle({ type: "settle", run_id: batch.run_id, results });
    });
  };
  const routed: GuestCall[] = [];
  for (const call of batch.calls) {
    try {
      const args = fromWire(call.args, "args");
      routed.push({ call_id: call.call_id, module: call.module, export: call.export, args: args as unknown[] });
    } catch (err) {
      const message = err instanceof Error ? err.message : "arguments could not be decoded";
      push({ call_id: call.call_id, ok: false, error: failure("invalid_call", `${call.export}: ${message}`) });
    }
  }
  if (routed.length === 0) return;
  let promises: ReadonlyArray<Promise<InvokeResult>>;
  try {
    promises = options.router(routed, options.signal);
  } catch {
    promises = routed.map(() => Promise.reject(new Error("router threw")));
  }
  routed.forEach((call, i) => {
    const promise = promises[i] ?? Promise.reject(new Error("router returned no result"));
    promise.then(
      (result) => push(encodeResult(call, result)),
      () =>
        push({
          call_id: call.call_id,
          ok: false,
          error: failure("capability_failed", UNEXPECTED, { capability: call.export }),
        }),
    );
  });
}

function encodeResult(call: GuestCall, result: InvokeResult): WireCallResult {
  if (!result || typeof result !== "object" || typeof result.ok !== "boolean") {
    return {
      call_id: call.call_id,
      ok: false,
      error: failure("capability_failed", UNEXPECTED, { capability: call.export }),
    };
  }
  const waited = typeof result.waited_ms === "number" && result.waited_ms > 0 ? { waited_ms: result.waited_ms } : {};
  if (!result.ok) {
    // Re-parsed so only the payload's known fields (code, message, issues, ...) travel: no stack.
    const parsed = FailurePayload.safeParse(result.error);
    const error = parsed.success ? parsed.data : failure("capability_failed", UNEXPECTED, { capability: call.export });
    return { call_id: call.call_id, ok: false, error, ...waited };
  }
  try {
    return { call_id: call.call_id, ok: true, value: toWire(result.value, "result"), ...waited };
  } catch (err) {
    const message = err instanceof Error ? err.message : "the result could not be encoded";
    return {
      call_id: call.call_id,
      ok: false,
      error: failure("capability_failed", `${call.export} returned a value the sandbox cannot receive: ${message}`),
      ...waited,
    };
  }
}
