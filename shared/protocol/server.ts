/**
 * Messages that cross the page <-> server boundary beyond tRPC's own envelopes: the session's event
 * stream and the shapes of run.invoke and run.invokeMany calls and answers. Zod schemas with inferred types, tagged by `type`.
 */
import { z } from "zod";
import { JobSummary } from "../capabilities/specs/jobs.specs.ts";
import { MODES } from "../capabilities/types.ts";
import { ApprovalAnswer, ApprovalRequest } from "../gate/approvals.ts";
import { FailurePayload } from "./errors.ts";

export const Mode = z.enum(MODES);

export const ApprovalSettledEvent = z.object({
  type: z.literal("approval_settled"),
  approval_id: z.string(),
  status: z.enum(["allow", "allow_for_session", "deny", "timeout", "cancelled"]),
});

export const RunEndedEvent = z.object({ type: z.literal("run_ended"), run_id: z.string(), reason: z.string() });

export const JobProgressEvent = z.object({
  type: z.literal("job_progress"),
  job_id: z.string(),
  status: z.enum(["queued", "running"]),
  node_id: z.string().optional(),
  node_status: z.enum(["running", "completed", "failed"]).optional(),
  percent: z.number().min(0).max(100),
});

export const SessionEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("approval_requested"), approval: ApprovalRequest }),
  ApprovalSettledEvent,
  RunEndedEvent,
  /** A child agent (`agents.run_subtask`) started a step; the last one says how it ended. */
  z.object({
    type: z.literal("subtask_progress"),
    run_id: z.string(),
    thread_id: z.string(),
    step: z.number().int().min(0),
    steps: z.number().int().min(1),
    description: z.string().optional(),
    status: z.enum(["final", "step_cap", "budget", "stopped", "failed"]).optional(),
  }),
  z.object({ type: z.literal("mode_changed"), mode: Mode }),
  z.object({ type: z.literal("allow_set_changed"), allowed: z.array(z.string()) }),
  JobProgressEvent,
  /** Every session of the user hears it: a workflow was created, changed (renamed, saved) or deleted. */
  z.object({
    type: z.literal("workflow_changed"),
    change: z.enum(["created", "updated", "deleted"]),
    workflow: z.object({
      id: z.string(),
      name: z.string().optional(),
      description: z.string().optional(),
      version: z.number().optional(),
      updated_at: z.string().optional(),
    }),
  }),
  z.object({
    type: z.literal("job_ended"),
    job_id: z.string(),
    status: z.enum(["completed", "failed", "cancelled"]),
    error: FailurePayload.extend({ node_id: z.string().optional(), node_type: z.string().optional() }).optional(),
  }),
]);
export type SessionEvent = z.infer<typeof SessionEvent>;

export const InvokeAnswer = z.union([
  z.object({
    ok: z.literal(true),
    value: z.unknown(),
    waited_ms: z.number().optional(),
    approval_ms: z.number().optional(),
  }),
  z.object({
    ok: z.literal(false),
    error: FailurePayload,
    waited_ms: z.number().optional(),
    approval_ms: z.number().optional(),
  }),
  z.object({ pending: z.literal(true) }),
]);
export type InvokeAnswer = z.infer<typeof InvokeAnswer>;

/** One call of `run.invokeMany` (the page sends each worker batch as one). */
export const InvokeCall = z.object({
  module: z.string().min(1).max(300),
  export: z.string().min(1).max(200),
  args: z.array(z.unknown()),
  callId: z.string().min(1).max(200),
});
export type InvokeCall = z.infer<typeof InvokeCall>;

/** What `run.invokeMany` streams: the answers that settled together, each with its callId. */
export const AnswerGroup = z.array(z.object({ callId: z.string(), answer: InvokeAnswer }));
export type AnswerGroup = z.infer<typeof AnswerGroup>;

/**
 * One job as the page's jobs list shows it (`jobs.list`; values in the boundary encoding): the
 * capability's job summary, with the job's inputs and outputs (each cut to `{$truncated}` when large).
 */
export const ListedJob = JobSummary.extend({ inputs: z.unknown().optional(), outputs: z.unknown().optional() });
export type ListedJob = z.infer<typeof ListedJob>;

export const RespondInput = z.object({ approvalId: z.string().min(1).max(200), answer: ApprovalAnswer });
