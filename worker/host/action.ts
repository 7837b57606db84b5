/**
 * One action, start to end, on a fresh runtime and context that die with it. The VM only ever runs in
 * bounded synchronous slices (module evaluation, a drain of at most `jobsPerSlice` jobs, the final
 * serialisation), each announced to the slice watch; between slices the host flushes the call outbox,
 * looks at the clock and its mailbox, and waits for a settlement when nothing else can make progress.
 * Nothing pending and nothing queued while the result is unsettled is a deadlock: it ends at once.
 *
 * Throws only for host faults (a wasm trap, the host's own stack): the caller then rebuilds the module.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten-core";
import type { WireCall, WireCallResult } from "../../shared/protocol/worker.ts";
import { catalog, INTERNAL_PREFIX } from "../../shared/sandbox/facade.ts";
import type { ImportScope } from "../../shared/sandbox/imports.ts";
import { CallBridge } from "./bridge.ts";
import { ActionClock, type SliceWatch } from "./clock.ts";
import { cancelledError, deadlockError, type ObservedError, timeoutError } from "./failures.ts";
import { SETUP_SOURCE } from "./guest-sources.ts";
import type { Limits } from "./limits.ts";
import { ACTION_FILENAME, createModuleResolver, SETUP_SPECIFIER } from "./loader.ts";
import { LogBuffer } from "./observation.ts";
import { describeError, type EndState, type GuestHooks, type Slice, serialiseResult, settleNow } from "./result.ts";

export interface ActionIO {
  /** Sends one batch of guest calls out of the worker; a rejection fails those calls. */
  send(calls: WireCall[]): Promise<void>;
  sliceWatch?: SliceWatch;
  /** Lets the host's event loop run (settlements, cancel) during long job drains. */
  yieldToHost(): Promise<void>;
}

export interface ActionOutcome extends EndState {
  logs: string[];
  calls: CallBridge["records"];
  setupMs: number;
}

/** The live part of a running action that the host's mailbox talks to. */
export interface ActionControl {
  settle(results: readonly WireCallResult[]): void;
  cancel(): void;
}

const YIELD_EVERY_MS = 15;

export async function runAction(options: {
  module: QuickJSWASMModule;
  source: string;
  scope: ImportScope;
  limits: Limits;
  io: ActionIO;
  onStart(control: ActionControl): void;
}): Promise<ActionOutcome> {
  const { module, limits, io } = options;
  const started = performance.now();
  const clock = new ActionClock({ timeoutMs: limits.timeoutMs, creditCapMs: limits.approvalCreditMs });
  const logs = new LogBuffer(limits.maxLogChars);
  const resolver = createModuleResolver(options.scope);
  let cancelled = false;
  let wake: (() => void) | undefined;
  const poke = () => wake?.();

  const runtime: QuickJSRuntime = module.newRuntime();
  let ctx: QuickJSContext | undefined;
  let bridge: CallBridge | undefined;
  const held: QuickJSHandle[] = [];
  const hooks: GuestHooks = {};
  try {
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    runtime.setInterruptHandler(() => cancelled || clock.expired());
    runtime.setModuleLoader(
      (name) => resolver.load(name),
      (base, requested) => resolver.normalize(base, requested),
    );
    const context = runtime.newContext();
    ctx = context;
    const calls = new CallBridge({ ctx: context, clock, maxCalls: limits.maxCalls });
    bridge = calls;
    options.onStart({
      settle(results) {
        if (calls.settle(results) > 0) poke();
      },
      cancel() {
        cancelled = true;
        poke();
      },
    });

    const slice: Slice = (fn) => {
      io.sliceWatch?.begin(clock.deadline);
      try {
        return fn();
      } finally {
        io.sliceWatch?.end();
      }
    };
    const flush = () => {
      const outbox = calls.takeOutbox();
      if (outbox.length === 0) return;
      io.send(outbox).catch(() => {
        const failed: WireCallResult[] = outbox.map((c) => ({
          call_id: c.call_id,
          ok: false,
          error: { code: "run_ended", message: "The host stopped answering; the call was not completed." },
        }));
        if (calls.settle(failed) > 0) poke();
      });
    };
    const stopReason = (): ObservedError | undefined => {
      if (cancelled) return cancelledError();
      if (!clock.expired()) return undefined;
      // Calls in flight may be waiting for a person: their results will say so and be credited.
      if (calls.pendingCount > 0 && !clock.expiredBeyondCredit()) return undefined;
      return timeoutError(limits.timeoutMs);
    };

    installHost(context, {
      calls,
      logs,
      held,
      catalog: () => JSON.stringify(catalog(options.scope.mounted, options.scope.packs)),
      load: (name) => resolver.load(`${INTERNAL_PREFIX}${name}`),
    });
    const finish = (outcome: EndState, setupMs: number): ActionOutcome => ({
      ...outcome,
      logs: logs.lines(),
      calls: calls.records,
      setupMs,
    });

    // Setup: helpers, console, the bridge (which takes the host functions off the global). Evaluated
    // under its own module name, so the facades' imports of the bridge find it already loaded.
    const setup = slice(() => context.evalCode(SETUP_SOURCE, SETUP_SPECIFIER, { type: "module" }));
    const setupState = settleNow(context, runtime, setup, slice, (namespace) => {
      hooks.serialise = exportedFunction(context, namespace, "serialise");
      hooks.describe = exportedFunction(context, namespace, "describe");
    });
    if (!setupState.ok) throw new Error(`sandbox setup failed: ${setupState.message}`);
    const setupMs = performance.now() - started;

    const evaluated = slice(() => context.evalCode(options.source, ACTION_FILENAME, { type: "module" }));
    if (evaluated.error) {
      const error = stopReason() ?? describeError(context, hooks, evaluated.error, resolver.refusals, slice);
      evaluated.error.dispose();
      return finish({ ok: false, error }, setupMs);
    }
    const promise = evaluated.value;
    held.push(promise);

    let lastYield = performance.now();
    for (;;) {
      const stop = stopReason();
      if (stop) return finish({ ok: false, error: stop }, setupMs);
      const state = context.getPromiseState(promise);
      if (state.type === "fulfilled") {
        if (!state.notAPromise) held.push(state.value);
        return finish(serialiseResult(context, runtime, hooks, state.value, limits, slice, stopReason), setupMs);
      }
      if (state.type === "rejected") {
        const error = stopReason() ?? describeError(context, hooks, state.error, resolver.refusals, slice);
        state.error.dispose();
        return finish({ ok: false, error }, setupMs);
      }
      if (runtime.hasPendingJob() && !clock.expired()) {
        const jobs = slice(() => runtime.executePendingJobs(limits.jobsPerSlice));
        // A job that throws is reported through its promise; here we only release the handle.
        if (jobs.error) jobs.error.dispose();
        flush();
        if (performance.now() - lastYield > YIELD_EVERY_MS) {
          await io.yieldToHost();
          lastYield = performance.now();
        }
        continue;
      }
      flush();
      if (calls.pendingCount === 0) {
        return finish(
          { ok: false, error: clock.expired() ? timeoutError(limits.timeoutMs) : deadlockError() },
          setupMs,
        );
      }
      await new Promise<void>((resolve) => {
        const wait = clock.expired() ? clock.remaining() + clock.creditLeft() : clock.remaining();
        const timer = setTimeout(resolve, Math.max(0, wait) + 1);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      lastYield = performance.now();
    }
  } finally {
    bridge?.end();
    for (const handle of held) if (handle.alive) handle.dispose();
    hooks.serialise?.dispose();
    hooks.describe?.dispose();
    ctx?.dispose();
    runtime.dispose();
  }
}

/** One function the setup module exports (`serialise`, `describe`), or undefined. */
function exportedFunction(ctx: QuickJSContext, namespace: QuickJSHandle, name: string): QuickJSHandle | undefined {
  const handle = ctx.getProp(namespace, name);
  if (ctx.typeof(handle) === "function") return handle;
  handle.dispose();
  return undefined;
}

/**
 * The host object the setup module takes off the global: `call`, `log`, `catalog`, and `load(name)`,
 * which evaluates one of the sandbox's own modules now and returns its namespace (the synchronous
 * helpers are compiled on first use this way, not on every action start).
 */
function installHost(
  ctx: QuickJSContext,
  parts: {
    calls: CallBridge;
    logs: LogBuffer;
    held: QuickJSHandle[];
    catalog: () => string;
    /** The source of `nodetool:<name>`, as the module loader serves it. */
    load: (name: string) => string | { error: Error };
  },
): void {
  const { calls, logs, held } = parts;
  const host = ctx.newObject();
  held.push(host);
  const call = calls.newHostFunction();
  const log = ctx.newFunction("log", (levelH, textH) => {
    const level = ctx.typeof(levelH) === "string" ? ctx.getString(levelH) : "log";
    const text = ctx.typeof(textH) === "string" ? ctx.getString(textH) : "";
    logs.push(level, text);
  });
  const catalog = ctx.newFunction("catalog", () => ctx.newString(parts.catalog()));
  const load = ctx.newFunction("load", (nameH) => {
    const name = ctx.typeof(nameH) === "string" ? ctx.getString(nameH) : "";
    const source = parts.load(name);
    if (typeof source !== "string") return { error: ctx.newError(source.error.message) };
    // A module with no top-level await evaluates synchronously: its namespace comes back at once.
    const evaluated = ctx.evalCode(source, `${INTERNAL_PREFIX}${name}`, { type: "module" });
    if (evaluated.error) return { error: evaluated.error };
    const state = ctx.getPromiseState(evaluated.value);
    if (state.type === "fulfilled") {
      if (!state.notAPromise) evaluated.value.dispose();
      return state.value;
    }
    evaluated.value.dispose();
    if (state.type === "rejected") return { error: state.error };
    return { error: ctx.newError(`Module "${INTERNAL_PREFIX}${name}" cannot be loaded synchronously.`) };
  });
  ctx.setProp(host, "call", call);
  ctx.setProp(host, "log", log);
  ctx.setProp(host, "catalog", catalog);
  ctx.setProp(host, "load", load);
  ctx.setProp(ctx.global, "__nodetool_host", host);
  call.dispose();
  log.dispose();
  catalog.dispose();
  load.dispose();
}
