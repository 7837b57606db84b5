/**
 * The end of an action, inside the VM: the setup module's promise run to completion, an uncaught
 * error described by the guest's own `describe` (never a host stack), and `export default`
 * serialised by the guest's `serialise`, so its size is measured in the VM, under the deadline.
 *
 * The host never reads a guest object: every piece of guest work runs inside a watched slice, and
 * what comes back is read only when it is a primitive (the result's JSON text, a result's size, an
 * error's description as JSON text). A getter, a Proxy or a toJSON the action planted can therefore
 * only ever run inside a slice, where the interrupt handler and the watchdog stop it.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import type { ErrorCode } from "../../shared/protocol/errors.ts";
import { fromGuestError, type ObservedError, parseGuestError } from "./failures.ts";
import type { Limits } from "./limits.ts";
import { ACTION_FAILED } from "./observation.ts";

/** How an action ended, before logs and calls are attached. */
export interface EndState {
  ok: boolean;
  resultText?: string;
  error?: ObservedError;
}

/** Runs a synchronous piece of VM work inside the slice watch. */
export type Slice = <T>(fn: () => T) => T;

export interface GuestHooks {
  serialise?: QuickJSHandle;
  describe?: QuickJSHandle;
}

/**
 * Runs a just-evaluated module's promise to completion (setup has no awaits); `take` sees the module's
 * namespace before it is released.
 */
export function settleNow(
  ctx: QuickJSContext,
  runtime: QuickJSRuntime,
  result: ReturnType<QuickJSContext["evalCode"]>,
  slice: Slice,
  take?: (namespace: QuickJSHandle) => void,
) {
  if (result.error) {
    const message = JSON.stringify(ctx.dump(result.error));
    result.error.dispose();
    return { ok: false as const, message };
  }
  const promise = result.value;
  try {
    const jobs = slice(() => runtime.executePendingJobs());
    if (jobs.error) jobs.error.dispose();
    const state = ctx.getPromiseState(promise);
    if (state.type === "fulfilled") {
      take?.(state.value);
      if (!state.notAPromise) state.value.dispose();
      return { ok: true as const };
    }
    if (state.type === "rejected") {
      const message = JSON.stringify(ctx.dump(state.error));
      state.error.dispose();
      return { ok: false as const, message };
    }
    return { ok: false as const, message: "setup did not finish" };
  } finally {
    promise.dispose();
  }
}

export function describeError(
  ctx: QuickJSContext,
  hooks: GuestHooks,
  error: QuickJSHandle,
  refusals: ReadonlyMap<string, { code: ErrorCode }>,
  slice: Slice,
): ObservedError {
  let text: string | undefined;
  if (hooks.describe) {
    const describe = hooks.describe;
    const described = slice(() => ctx.callFunction(describe, ctx.undefined, error));
    if (described.error) described.error.dispose();
    else {
      if (ctx.typeof(described.value) === "string") text = ctx.getString(described.value);
      described.value.dispose();
    }
  }
  return fromGuestError(parseGuestError(text), refusals);
}

/** Serialises `export default` inside the VM (size measured there, under the deadline), in one slice. */
export function serialiseResult(
  ctx: QuickJSContext,
  hooks: GuestHooks,
  namespace: QuickJSHandle,
  limits: Limits,
  slice: Slice,
  stopReason: () => ObservedError | undefined,
): EndState {
  const serialise = hooks.serialise;
  if (!serialise) return { ok: false, error: { code: ACTION_FAILED, message: "The sandbox was not set up." } };
  const max = ctx.newNumber(limits.maxResultChars);
  const out = slice(() => ctx.callFunction(serialise, ctx.undefined, namespace, max));
  max.dispose();
  if (out.error) {
    const observed = stopReason() ?? describeError(ctx, hooks, out.error, new Map(), slice);
    out.error.dispose();
    if (observed.code === ACTION_FAILED) {
      observed.message = observed.message.replace(/^The action threw \w+: /, "The result cannot be returned: ");
    }
    return { ok: false, error: observed };
  }
  const value = out.value;
  try {
    const type = ctx.typeof(value);
    if (type === "string") return { ok: true, resultText: ctx.getString(value) };
    if (type === "number") return { ok: false, error: tooLarge(ctx.getNumber(value), limits.maxResultChars) };
    return { ok: false, error: { code: ACTION_FAILED, message: "The result could not be serialised." } };
  } finally {
    value.dispose();
  }
}

function tooLarge(chars: number, max: number): ObservedError {
  return {
    code: "result_too_large",
    message: `The result is ${chars} characters of JSON, over the limit of ${max}. Return a summary or a page of it, or share it with shared.share and return the key.`,
  };
}
