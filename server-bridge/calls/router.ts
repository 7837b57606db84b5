/**
 * The server's one call router (DESIGN.md section 8): every guest or script call, whatever carried it
 * (HTTP and WebSocket `run.invoke`, the Node sandbox's worker batches for MCP and the CLI), goes
 * through `serveCall`: decode the arguments from the boundary encoding (null-prototype plain data,
 * `Uint8Array`, `AssetRef`), dispatch (a library pack, or a capability through `dispatch` ->
 * `run.invoke`), encode the result. Transports differ only in how the bytes move.
 *
 * Nothing from the host leaks to the caller: a router that throws or rejects (with anything: an Error
 * with a cause, an AggregateError, null, a string) yields a fixed `capability_failed` message.
 */
import { PACK_PREFIX } from "../../shared/capabilities/table.ts";
import { type Actor, type InvokeResult, waitsOf } from "../../shared/capabilities/types.ts";
import type { CapabilityRun } from "../../shared/gate/invoke.ts";
import { FailurePayload, failure } from "../../shared/protocol/errors.ts";
import { fromWire, toWire } from "../../shared/protocol/values.ts";
import type { WireCall, WireCallResult } from "../../shared/protocol/worker.ts";
import { dispatch } from "../../shared/sandbox/dispatch.ts";
import type { LibraryDispatcher } from "../packs/dispatch.ts";

/** One call as the dispatchers see it: args decoded, export as the caller named it. */
export interface GuestCall {
  callId: string;
  module: string;
  export: string;
  args: unknown[];
  /** Who acts: the agent (default, gated) or the person at the editor (never prompted). */
  actor?: Actor | undefined;
}

/** What the host supplies to serve calls: one promise per call, in order. */
export type CallRouter = (calls: readonly GuestCall[], signal: AbortSignal) => ReadonlyArray<Promise<InvokeResult>>;

/** The usual router: capability modules through `dispatch` -> `run.invoke`, packs through the library. */
export function callRouter(options: {
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
      return dispatch(options.run, options.mounted, call, call.actor ? { actor: call.actor } : {});
    });
}

const UNEXPECTED =
  "The capability failed unexpectedly on the host; nothing more is known. Retry once, then try another way.";

/** A call as it arrives on a wire: arguments still in the boundary encoding. */
export type IncomingCall = Omit<WireCall, "args"> & { args: unknown; actor?: Actor | undefined };

/** Decodes, routes and encodes each call; settles each result as it completes (never rejects). */
export function serveCalls(
  calls: readonly IncomingCall[],
  router: CallRouter,
  signal: AbortSignal,
  settle: (result: WireCallResult) => void,
): void {
  const routed: GuestCall[] = [];
  for (const call of calls) {
    const decoded = decodeCall(call);
    if ("error" in decoded) settle({ callId: call.callId, ok: false, error: decoded.error });
    else routed.push(decoded);
  }
  if (routed.length === 0) return;
  let promises: ReadonlyArray<Promise<InvokeResult>>;
  try {
    promises = router(routed, signal);
  } catch {
    promises = routed.map(() => Promise.reject(new Error("router threw")));
  }
  routed.forEach((call, i) => {
    const promise = promises[i] ?? Promise.reject(new Error("router returned no result"));
    promise.then(
      (result) => settle(encodeResult(call, result)),
      () => settle({ callId: call.callId, ok: false, error: unexpected(call) }),
    );
  });
}

/** `serveCalls` for one call, as a promise of its result. */
export function serveCall(call: IncomingCall, router: CallRouter, signal: AbortSignal): Promise<WireCallResult> {
  return new Promise((resolve) => serveCalls([call], router, signal, resolve));
}

function decodeCall(call: IncomingCall): GuestCall | { error: FailurePayload } {
  if (!Array.isArray(call.args)) {
    return {
      error: failure("invalid_call", `${call.module} ${call.export}: args must be an array of call arguments.`),
    };
  }
  try {
    const args = fromWire(call.args, "args") as unknown[];
    const decoded: GuestCall = { callId: call.callId, module: call.module, export: call.export, args };
    if (call.actor) decoded.actor = call.actor;
    return decoded;
  } catch (err) {
    const message = err instanceof Error ? err.message : "arguments could not be decoded";
    return { error: failure("invalid_call", `${call.export}: ${message}`) };
  }
}

function unexpected(call: GuestCall): FailurePayload {
  return failure("capability_failed", UNEXPECTED, { capability: call.export });
}

function encodeResult(call: GuestCall, result: InvokeResult): WireCallResult {
  if (!result || typeof result !== "object" || typeof result.ok !== "boolean") {
    return { callId: call.callId, ok: false, error: unexpected(call) };
  }
  const waited = waitsOf(result);
  if (!result.ok) {
    // Re-parsed so only the payload's known fields (code, message, issues, ...) travel: no stack.
    const parsed = FailurePayload.safeParse(result.error);
    return { callId: call.callId, ok: false, error: parsed.success ? parsed.data : unexpected(call), ...waited };
  }
  try {
    return { callId: call.callId, ok: true, value: toWire(result.value, "result"), ...waited };
  } catch (err) {
    const message = err instanceof Error ? err.message : "the result could not be encoded";
    return {
      callId: call.callId,
      ok: false,
      error: failure("capability_failed", `${call.export} returned a value that cannot be sent back: ${message}`),
      ...waited,
    };
  }
}
