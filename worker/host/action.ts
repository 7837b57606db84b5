/**
 * One action, start to end, on a fresh runtime and context (prepared.ts) that die with it. The VM only
 * ever runs in bounded synchronous slices (module evaluation, a drain of at most `jobsPerSlice` jobs,
 * the final serialisation), each announced to the slice watch; between slices the host flushes the call outbox,
 * looks at the clock and its mailbox, and waits for a settlement when nothing else can make progress.
 * Nothing pending and nothing queued while the result is unsettled is a deadlock: it ends at once.
 *
 * Throws only for host faults (a wasm trap, the host's own stack): the caller then rebuilds the module.
 */
import type { WireCall, WireCallResult } from "../../shared/protocol/worker.ts";
import type { ImportScope } from "../../shared/sandbox/imports.ts";
import { CallBridge } from "./bridge.ts";
import { ActionClock, type SliceWatch, watchedSlices } from "./clock.ts";
import { cancelledError, deadlockError, type ObservedError, timeoutError } from "./failures.ts";
import type { Limits } from "./limits.ts";
import { ACTION_FILENAME, createModuleResolver } from "./loader.ts";
import { LogBuffer } from "./observation.ts";
import type { PreparedRuntime } from "./prepared.ts";
import { describeError, type EndState, type Slice, serialiseResult } from "./result.ts";

export interface ActionIO {
  /** Posts one batch of guest calls out of the worker; a throw fails those calls. */
  send(calls: WireCall[]): void;
  sliceWatch?: SliceWatch;
  /** Lets the host's event loop run (settlements, cancel) during long job drains. */
  yieldToHost(): Promise<void>;
}

export interface ActionOutcome extends EndState {
  logs: string[];
  calls: CallBridge["records"];
  /** How long the action waited for the person to answer approvals (not its own run time). */
  approvalMs: number;
  setupMs: number;
}

/** The live part of a running action that the host's mailbox talks to. */
export interface ActionControl {
  settle(results: readonly WireCallResult[]): void;
  cancel(): void;
}

const YIELD_EVERY_MS = 15;

export async function runAction(options: {
  /** A fresh runtime and context no other action has used; the caller disposes it after the action. */
  prepared: PreparedRuntime;
  source: string;
  scope: ImportScope;
  limits: Limits;
  io: ActionIO;
  onStart(control: ActionControl): void;
}): Promise<ActionOutcome> {
  const { prepared, limits, io } = options;
  const { runtime, context, hooks, held } = prepared;
  const started = performance.now();
  const clock = new ActionClock({ timeoutMs: limits.timeoutMs, creditCapMs: limits.approvalCreditMs });
  const logs = new LogBuffer(limits.maxLogChars);
  const resolver = createModuleResolver(options.scope);
  let cancelled = false;
  /** The interrupt handler stopped guest code mid-job: nothing of the action can go on after that. */
  let interrupted = false;
  let wake: (() => void) | undefined;
  const poke = () => wake?.();

  const calls = new CallBridge({ ctx: context, clock, maxCalls: limits.maxCalls });
  try {
    const interrupt = () => {
      // A stop the host wrote to shared memory: a cancel that reaches even a synchronous loop.
      if (!cancelled && io.sliceWatch?.stopRequested?.()) cancelled = true;
      if (!cancelled && !clock.expired()) return false;
      interrupted = true;
      return true;
    };
    prepared.bind({ calls, logs, resolver, scope: options.scope, interrupted: interrupt }, limits);
    options.onStart({
      settle(results) {
        if (calls.settle(results) > 0) poke();
      },
      cancel() {
        cancelled = true;
        poke();
      },
    });

    const slice: Slice = watchedSlices(io.sliceWatch, () => clock.deadline);
    const flush = () => {
      const outbox = calls.takeOutbox();
      if (outbox.length === 0) return;
      try {
        io.send(outbox);
      } catch {
        const failed: WireCallResult[] = outbox.map((c) => ({
          callId: c.callId,
          ok: false,
          error: { code: "run_ended", message: "The calls could not be sent to the host; they were not made." },
        }));
        calls.settle(failed);
      }
    };
    const stopReason = (): ObservedError | undefined => {
      if (cancelled) return cancelledError();
      if (interrupted) return timeoutError(limits.timeoutMs);
      if (!clock.expired()) return undefined;
      // Calls in flight may be waiting for a person: their results will say so and be credited.
      if (calls.pendingCount > 0 && !clock.expiredBeyondCredit()) return undefined;
      return timeoutError(limits.timeoutMs);
    };

    const finish = (outcome: EndState, setupMs: number): ActionOutcome => ({
      ...outcome,
      logs: logs.lines(),
      calls: calls.records,
      approvalMs: calls.approvalWaitMs(),
      setupMs,
    });

    // The runtime was made ready before the action arrived; its start is the binding above.
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
        return finish(serialiseResult(context, hooks, state.value, limits, slice, stopReason), setupMs);
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
    // No call may be issued from now on; the host disposes the runtime once the response has gone out.
    calls.end();
  }
}
