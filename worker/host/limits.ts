/**
 * Per-action limits (DESIGN.md section 6), all configurable, with the defaults an action gets when its
 * host says nothing. Enforced in layers: the wasm memory is bounded when the module is built, the rest
 * per runtime (memory limit, stack), per slice (interrupt deadline, bounded job drains) and per
 * action (wall-time deadline with approval credit, call cap, result cap, log cap).
 */
import type { LimitOverrides } from "../../shared/protocol/worker.ts";
import { ACTION_LIMITS, WASM_MAX_BYTES } from "../../shared/sandbox/limits.ts";

export interface Limits {
  /** Wall time an action may take, not counting approval waits (credited, see `approvalCreditMs`). */
  timeoutMs: number;
  /** QuickJS allocator limit for one runtime. */
  memoryBytes: number;
  /** QuickJS stack limit; at most 1 MiB (deep recursion must hit this before the host's own stack). */
  stackBytes: number;
  /** Capability calls one action may issue. */
  maxCalls: number;
  /** Size of the serialised result, in characters, measured inside the VM. */
  maxResultChars: number;
  /** Total characters of captured console output. */
  maxLogChars: number;
  /** Size the whole observation is cut to, with a visible marker. */
  maxObservationChars: number;
  /** The most approval wait one action may have credited back to its deadline, in total. */
  approvalCreditMs: number;
  /** Jobs run per `executePendingJobs` slice before the host looks at the clock and its mailbox. */
  jobsPerSlice: number;
}

/** The defaults (shared/sandbox/limits.ts, which the action contract's text reads too). */
export const DEFAULT_LIMITS: Readonly<Limits> = ACTION_LIMITS;

/** Module-wide bound: the wasm memory may never grow past this, whatever one runtime's limit says. */
export const DEFAULT_WASM_MAX_BYTES = WASM_MAX_BYTES;

export const MAX_STACK_BYTES = 1024 * 1024;

export function resolveLimits(base: Readonly<Limits>, overrides: LimitOverrides = {}): Limits {
  const limits: Limits = {
    timeoutMs: overrides.timeout_ms ?? base.timeoutMs,
    memoryBytes: overrides.memory_bytes ?? base.memoryBytes,
    stackBytes: Math.min(MAX_STACK_BYTES, overrides.stack_bytes ?? base.stackBytes),
    maxCalls: overrides.max_calls ?? base.maxCalls,
    maxResultChars: overrides.max_result_chars ?? base.maxResultChars,
    maxLogChars: overrides.max_log_chars ?? base.maxLogChars,
    maxObservationChars: overrides.max_observation_chars ?? base.maxObservationChars,
    approvalCreditMs: overrides.approval_credit_ms ?? base.approvalCreditMs,
    jobsPerSlice: base.jobsPerSlice,
  };
  return limits;
}
