/**
 * The numbers an action lives within, stated once: the worker's defaults (worker/host/limits.ts)
 * and the action contract's text (contract.ts) both read them, so the text says what is enforced.
 */

/** The most JSON (characters) `export default` may come to; past it the action ends with result_too_large. */
export const MAX_RESULT_CHARS = 256 * 1024;

/** Captured console output per action, in characters (past it, lines are dropped with a marker). */
export const MAX_LOG_CHARS = 64 * 1024;

/** Room in the observation for the call list beside a result and logs at their caps. */
const CALLS_ROOM_CHARS = 128 * 1024;

export const ACTION_LIMITS = Object.freeze({
  timeoutMs: 30_000,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 512 * 1024,
  maxCalls: 1000,
  maxResultChars: MAX_RESULT_CHARS,
  maxLogChars: MAX_LOG_CHARS,
  // A result within its cap is never cut to a preview: the observation has room for it, the logs and calls.
  maxObservationChars: MAX_RESULT_CHARS + MAX_LOG_CHARS + CALLS_ROOM_CHARS,
  // As long as an approval may stay open (DEFAULT_APPROVAL_TIMEOUT_MS in shared/gate/gate.ts).
  approvalCreditMs: 5 * 60_000,
  jobsPerSlice: 1000,
});

/**
 * The module-wide bound of one worker's wasm memory. It is what really bounds an action's memory:
 * this QuickJS build has no malloc_usable_size, so its own per-runtime limit counts allocations, not
 * bytes (measured: a hundred 1 MiB strings fit under a 16 MiB limit).
 */
export const WASM_MAX_BYTES = 256 * 1024 * 1024;

/** The most argument JSON (characters) one action may have issued and not yet had answered. */
export const MAX_ARGS_IN_FLIGHT_CHARS = 64 * 1024 * 1024;
