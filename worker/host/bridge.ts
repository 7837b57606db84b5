/**
 * The host half of the private bridge: the one host function the guest's bridge module holds. Each
 * call becomes a guest promise (a deferred) and an entry in the outbox; the runtime flushes the outbox
 * after every VM slice, so the calls a guest issues in one tick leave the worker as one batch. Results
 * come back one settlement at a time and resolve their deferreds with a JSON answer the guest bridge
 * decodes (values stay in the boundary encoding end to end; the worker never interprets them).
 *
 * Refused here, without leaving the worker: calls over the per-action cap, calls once the action's
 * deadline has passed, calls after the action ended (the runtime is gone by then anyway), and
 * arguments that would put more than MAX_ARGS_IN_FLIGHT_CHARS of JSON in flight: what a guest sends
 * is copied out of its bounded wasm memory into the worker's and the host's heaps, which nothing else
 * bounds.
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from "quickjs-emscripten-core";
import { PACK_PREFIX } from "../../shared/capabilities/table.ts";
import { type FailurePayload, failure } from "../../shared/protocol/errors.ts";
import type { WireCall, WireCallResult } from "../../shared/protocol/worker.ts";
import { MAX_ARGS_IN_FLIGHT_CHARS } from "../../shared/sandbox/limits.ts";
import type { ActionClock } from "./clock.ts";

interface PendingCall {
  deferred: QuickJSDeferredPromise;
  capability: string;
  started: number;
  /** Characters of argument JSON this call holds in flight. */
  chars: number;
}

export interface CallRecordOut {
  capability: string;
  ok: boolean;
  /** The call's own time, its wait for an approval left out (`approval_ms`). */
  ms: number;
  waited_ms?: number;
  approval_ms?: number;
}

/** How a call is named in the observation: the wire name, or `csv.parse` for a pack export. */
function label(module: string, name: string): string {
  return module.startsWith(PACK_PREFIX) ? `${module.slice(PACK_PREFIX.length)}.${name}` : name;
}

export class CallBridge {
  readonly records: CallRecordOut[] = [];
  /** When calls waited for approvals: [from, to] in performance.now() time. */
  readonly #approvalSpans: [number, number][] = [];
  readonly #ctx: QuickJSContext;
  readonly #clock: ActionClock;
  readonly #maxCalls: number;
  readonly #pending = new Map<string, PendingCall>();
  #outbox: WireCall[] = [];
  #issued = 0;
  #inFlightChars = 0;
  #ended = false;

  constructor(options: { ctx: QuickJSContext; clock: ActionClock; maxCalls: number }) {
    this.#ctx = options.ctx;
    this.#clock = options.clock;
    this.#maxCalls = options.maxCalls;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  /** The guest-facing `call(module, name, argsJson)`: a guest promise; never throws into the guest. */
  call(module: string, name: string, argsJson: string): QuickJSHandle {
    const refusal = this.#refusal(name) ?? this.#tooMuch(name, argsJson.length);
    if (refusal) return this.#settledNow(name, refusal);
    let args: unknown;
    try {
      args = JSON.parse(argsJson);
    } catch {
      args = undefined;
    }
    if (!Array.isArray(args)) {
      return this.#settledNow(name, failure("invalid_call", `${name}: arguments could not be encoded.`));
    }
    this.#issued++;
    const callId = String(this.#issued);
    const deferred = this.#ctx.newPromise();
    this.#inFlightChars += argsJson.length;
    this.#pending.set(callId, {
      deferred,
      capability: label(module, name),
      started: performance.now(),
      chars: argsJson.length,
    });
    this.#outbox.push({ callId: callId, module, export: name, args });
    return deferred.handle;
  }

  #refusal(name: string): FailurePayload | undefined {
    if (this.#ended) return failure("run_ended", "This action has ended; no more capability calls can be made.");
    if (this.#clock.expired()) {
      return failure("timeout", `The action's time limit was reached before ${name} could be called.`);
    }
    if (this.#issued >= this.#maxCalls) {
      return failure(
        "invalid_call",
        `This action already made ${this.#maxCalls} capability calls, the most one action may make. Split the work into several actions.`,
      );
    }
    return undefined;
  }

  #tooMuch(name: string, chars: number): FailurePayload | undefined {
    if (this.#inFlightChars + chars <= MAX_ARGS_IN_FLIGHT_CHARS) return undefined;
    return failure(
      "invalid_call",
      `${name}: its arguments are ${chars} characters of JSON, and at most ${MAX_ARGS_IN_FLIGHT_CHARS} may be in flight at once (${this.#inFlightChars} are). Await earlier calls first, or send less per call (large files: assets).`,
    );
  }

  /** A call refused inside the worker: a guest promise already resolved with the failure. */
  #settledNow(name: string, error: FailurePayload): QuickJSHandle {
    this.records.push({ capability: name, ok: false, ms: 0 });
    const deferred = this.#ctx.newPromise();
    const answer = this.#ctx.newString(JSON.stringify({ ok: false, error: { ...error, capability: name } }));
    deferred.resolve(answer);
    answer.dispose();
    return deferred.handle;
  }

  /** Takes the calls issued since the last flush (one batch per VM slice). */
  takeOutbox(): WireCall[] {
    const out = this.#outbox;
    this.#outbox = [];
    return out;
  }

  /** Resolves the deferreds these results answer; returns how many it settled. */
  settle(results: readonly WireCallResult[]): number {
    let settled = 0;
    for (const result of results) {
      const pending = this.#pending.get(result.callId);
      if (!pending) continue; // answered already, or the call was abandoned
      this.#pending.delete(result.callId);
      this.#inFlightChars -= pending.chars;
      const elapsed = performance.now() - pending.started;
      // The server measured the approval wait inside this call's time: never more than all of it.
      const approval = Math.min(elapsed, result.approval_ms ?? 0);
      const record: CallRecordOut = {
        capability: pending.capability,
        ok: result.ok,
        ms: Math.round(elapsed - approval),
      };
      if (result.waited_ms !== undefined && result.waited_ms > 0) {
        record.waited_ms = Math.round(this.#clock.credit(result.waited_ms));
      }
      if (approval > 0) {
        record.approval_ms = Math.round(approval);
        // The gate asks before the implementation runs, right after the call's quick checks.
        this.#approvalSpans.push([pending.started, pending.started + approval]);
      }
      this.records.push(record);
      const answer = result.ok
        ? { ok: true, value: result.value ?? null }
        : { ok: false, error: { ...result.error, capability: result.error.capability ?? pending.capability } };
      const handle = this.#ctx.newString(JSON.stringify(answer));
      pending.deferred.resolve(handle);
      handle.dispose();
      settled++;
    }
    return settled;
  }

  /**
   * How long the action waited for approvals: the union of its calls' waits, so calls that waited side
   * by side (answered one after the other in the dialog) count their shared time once.
   */
  approvalWaitMs(): number {
    const spans = [...this.#approvalSpans].sort((a, b) => a[0] - b[0]);
    let total = 0;
    let end = Number.NEGATIVE_INFINITY;
    for (const [from, to] of spans) {
      if (to <= end) continue;
      total += to - Math.max(from, end);
      end = to;
    }
    return total;
  }

  /** Fails every call still pending with `failure` (deadline, cancel) without running the guest. */
  abandon(): string[] {
    const ids = [...this.#pending.keys()];
    for (const [, pending] of this.#pending) {
      this.records.push({
        capability: pending.capability,
        ok: false,
        ms: Math.round(performance.now() - pending.started),
      });
      pending.deferred.dispose();
    }
    this.#pending.clear();
    this.#inFlightChars = 0;
    this.#outbox = [];
    return ids;
  }

  /** No call may be issued from now on. Disposes every deferred still held. */
  end(): void {
    this.#ended = true;
    this.abandon();
  }
}
