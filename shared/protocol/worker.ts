/**
 * The messages that cross the worker <-> host boundary (the page in a browser, the server's
 * `worker_threads` host in Node), as zod schemas. Each side parses what it receives: data from the
 * other side is `unknown` until it passes one of these.
 *
 * The worker exposes `run`, `cancel` and `settle`; the host exposes `calls`. Guest calls issued in the
 * same tick leave the worker as one `CallBatch`; their results come back one `CallSettlement` at a
 * time as each completes, so a call waiting on an approval holds back no other. In the browser the
 * page posts each `CallSettlement` as a one-way message on the worker's own port (no reply to wait
 * for); the Node host calls `settle` through the adapter.
 */
import { z } from "zod";
import { ErrorCode, FailurePayload } from "./errors.ts";

const Id = z.string().min(1).max(200);

/** What the worker needs to know about a library pack: names only, never code. */
export const PackInfo = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  description: z.string().max(2000),
  exports: z
    .array(
      z.object({
        name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
        description: z.string().max(2000),
        signature: z.string().max(500).optional(),
      }),
    )
    .max(200),
});
export type PackInfo = z.infer<typeof PackInfo>;

/** Per-action limits a host may override; the worker fills the rest from its defaults. */
export const LimitOverrides = z
  .object({
    timeout_ms: z.number().int().min(1).max(600_000),
    memory_bytes: z
      .number()
      .int()
      .min(1 << 20),
    stack_bytes: z
      .number()
      .int()
      .min(64 * 1024)
      .max(1 << 20),
    max_calls: z.number().int().min(0).max(100_000),
    max_result_chars: z.number().int().min(16),
    max_log_chars: z.number().int().min(0),
    max_observation_chars: z.number().int().min(256),
    approval_credit_ms: z.number().int().min(0),
  })
  .partial();
export type LimitOverrides = z.infer<typeof LimitOverrides>;

export const RunRequest = z.object({
  type: z.literal("run"),
  run_id: Id,
  action: z.string().max(1_000_000),
  /** Capability namespaces mounted for this session (`workflows`, not the full specifier). */
  mounted: z.array(z.string()).max(100),
  /** Library packs this session may import. */
  packs: z.array(PackInfo).max(50).default([]),
  limits: LimitOverrides.default({}),
});
export type RunRequest = z.input<typeof RunRequest>;

export const ObservationError = z.object({
  code: ErrorCode,
  message: z.string(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
});

export const CallRecord = z.object({
  capability: z.string(),
  ok: z.boolean(),
  /** The call's own time: from the call to its result, less its wait for an approval. */
  ms: z.number(),
  /** Time credited to the action's deadline: an approval's wait, a child agent's steps. */
  waited_ms: z.number().optional(),
  /** Time the call waited for the person to answer its approval. */
  approval_ms: z.number().optional(),
});

/** What an action returns to the agent (DESIGN.md section 6). */
export const Observation = z.object({
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: ObservationError.optional(),
  logs: z.array(z.string()),
  calls: z.array(CallRecord),
  /** The action's own run time: wall time less what its calls waited for approvals (`approval_ms`). */
  duration_ms: z.number(),
  /** Time the action waited for the person to answer approvals, when it did. */
  approval_ms: z.number().optional(),
  /** Present when the observation was cut to its size limit; a marker is visible where it was cut. */
  truncated: z.boolean().optional(),
});
export type Observation = z.infer<typeof Observation>;

export const RunResponse = z.object({
  type: z.literal("run_result"),
  run_id: Id,
  observation: Observation,
  /** Where the time went: runtime + context + helpers set up, and the whole run. */
  timings: z.object({
    /** From the request to the action's own code starting (its runtime bound, facades not yet linked). */
    setup_ms: z.number(),
    total_ms: z.number(),
    /** What preparing the runtime took, and whether that happened before the request (off its path). */
    prepare_ms: z.number(),
    prepared_ahead: z.boolean(),
  }),
});
export type RunResponse = z.infer<typeof RunResponse>;

/** A worker's counters (its leak check): what it holds between actions, and what went wrong freeing it. */
export const SandboxStats = z.object({
  /** Runtimes serving an action (0 between actions). */
  liveRuntimes: z.number().int(),
  /** A used runtime not yet disposed (0 or 1; disposed as soon as the worker is idle). */
  retiredRuntimes: z.number().int(),
  /** Fresh runtimes made ready for the next action (0 or 1). */
  preparedRuntimes: z.number().int(),
  /** How many times the wasm module was instantiated (1 + rebuilds after faults). */
  builds: z.number().int(),
  actions: z.number().int(),
  /** Runtimes QuickJS could not free (an object still alive: a leaked handle); each forced a rebuild. */
  disposeFailures: z.number().int(),
  wasmBytes: z.number().int(),
});
export type SandboxStats = z.infer<typeof SandboxStats>;

export const CancelRequest = z.object({ type: z.literal("cancel"), run_id: Id });
export type CancelRequest = z.infer<typeof CancelRequest>;

/** One guest call: `args` is the call's argument list in the boundary encoding (values.ts). */
export const WireCall = z.object({
  callId: Id,
  module: z.string().max(300),
  export: z.string().max(200),
  args: z.array(z.unknown()).max(64),
});
export type WireCall = z.infer<typeof WireCall>;

/** The most calls one batch carries (a VM slice drains at most this many jobs, so issues at most this many). */
export const MAX_BATCH_CALLS = 1000;

export const CallBatch = z.object({
  type: z.literal("calls"),
  run_id: Id,
  calls: z.array(WireCall).min(1).max(MAX_BATCH_CALLS),
});
export type CallBatch = z.infer<typeof CallBatch>;

export const WireCallResult = z.discriminatedUnion("ok", [
  z.object({
    callId: Id,
    ok: z.literal(true),
    value: z.unknown(),
    waited_ms: z.number().min(0).optional(),
    approval_ms: z.number().min(0).optional(),
  }),
  z.object({
    callId: Id,
    ok: z.literal(false),
    error: FailurePayload,
    waited_ms: z.number().min(0).optional(),
    approval_ms: z.number().min(0).optional(),
  }),
]);
export type WireCallResult = z.infer<typeof WireCallResult>;

export const CallSettlement = z.object({
  type: z.literal("settle"),
  run_id: Id,
  results: z.array(WireCallResult).min(1).max(MAX_BATCH_CALLS),
});
export type CallSettlement = z.infer<typeof CallSettlement>;

/**
 * A Node worker's own message to its host: a fresh runtime is ready for the next action, prepared after
 * the worker had received `requests` run requests (a host that has sent more since knows an action has
 * taken it). The first one also says the worker has started.
 */
export const RuntimePrepared = z.object({ type: z.literal("prepared"), requests: z.number().int().min(0) });
export type RuntimePrepared = z.infer<typeof RuntimePrepared>;

/**
 * The worker's surface, as the host sees it (the adapter allows exactly these names). Guest calls and
 * their results do not use it: they cross as one-way messages, each parsed by its receiver, so a call
 * costs each side one message, with no acknowledgement to send back and wait for: the worker posts a
 * `CallBatch` on the host's port, the host posts a `CallSettlement` to the worker.
 */
export interface WorkerApi {
  run(request: RunRequest): Promise<RunResponse>;
  cancel(request: CancelRequest): Promise<void>;
  /** Does the idle work now (frees the last runtime) and answers the counters. */
  stats(): Promise<SandboxStats>;
}
export const WORKER_API_NAMES = ["run", "cancel", "stats"] as const satisfies readonly (keyof WorkerApi)[];
