/** Specs of the `jobs` namespace: workflow runs, their progress, outputs and cancellation. Data only. */
import { z } from "zod";
import { FailureOut, IsoTime, UserJson } from "../outputs.ts";
import { defineSpec, type ModuleSpecs } from "../types.ts";

const JobId = z.string().min(1).max(200).describe("The job's id, from workflows.start or workflows.run");

const JobStatus = z.enum(["queued", "running", "completed", "failed", "cancelled"]);
const NodeStatus = z.enum(["pending", "running", "completed", "failed", "cancelled", "skipped"]);

/** A job as `jobs.list` shows it: no inputs, outputs or nodes. */
export const JobSummary = z
  .strictObject({
    job_id: z.string(),
    workflow_id: z.string().nullable(),
    workflow_name: z
      .string()
      .nullable()
      .optional()
      .describe("In lists: the workflow's name now (null for a graph run, or a workflow since deleted)"),
    status: JobStatus,
    created_at: IsoTime,
    started_at: IsoTime.nullable(),
    ended_at: IsoTime.nullable(),
    duration_ms: z.number().nullable(),
    progress: z.strictObject({ done: z.number().int(), total: z.number().int(), percent: z.number() }),
    error: z
      .strictObject({ ...FailureOut.shape, node_id: z.string().optional(), node_type: z.string().optional() })
      .nullable()
      .describe("Why the job failed, naming the failing node"),
    cancel_requested: z.literal(true).optional(),
  })
  .meta({ id: "JobSummary", description: "A job as jobs.list shows it: no inputs, outputs or nodes" });

/** A job with its values and each node's status (`jobs.get`, `jobs.wait`, `workflows.run`). */
export const JobOut = z
  .strictObject({
    ...JobSummary.shape,
    inputs: UserJson.describe("The values the workflow was run with"),
    outputs: z
      .record(z.string(), UserJson)
      .nullable()
      .describe("workflow.output values by name (null until the job completes)"),
    nodes: z
      .array(
        z.strictObject({
          id: z.string(),
          type: z.string(),
          status: NodeStatus,
          duration_ms: z.number().optional(),
          outputs: UserJson.optional().describe("The node's outputs (with include_node_outputs)"),
          error: FailureOut.optional(),
        }),
      )
      .optional(),
  })
  .meta({ id: "Job", description: "A workflow run: status, progress, values, the error naming the failing node" });

/** What a started job answers at once. */
export const JobStarted = JobOut.pick({ job_id: true, status: true, progress: true });

export const listJobs = defineSpec({
  name: "list_jobs",
  method: "list",
  description: "List your jobs, newest first: id, workflow, status, progress, times, error.",
  category: "read",
  input: z.object({
    limit: z.number().int().min(1).max(200).default(20),
    status: z.enum(["queued", "running", "completed", "failed", "cancelled"]).optional(),
    workflow_id: z.string().min(1).max(200).optional(),
    before: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("Only jobs older than this job (the next page: the last job_id of the previous list)"),
  }),
  output: z.strictObject({ jobs: z.array(JobSummary), count: z.number().int() }),
});

export const getJob = defineSpec({
  name: "get_job",
  method: "get",
  description:
    "Read one job: status, progress, outputs, the error naming the failing node, and each node's status and timing (with include_node_outputs, each node's outputs too).",
  category: "read",
  positional: ["job_id"],
  input: z.object({ job_id: JobId, include_node_outputs: z.boolean().default(false) }),
  output: JobOut,
});

export const cancelJob = defineSpec({
  name: "cancel_job",
  method: "cancel",
  description:
    "Cancel a queued or running job; nodes that have not finished are stopped. A settled job is left as it is.",
  category: "write",
  positional: ["job_id"],
  input: z.object({ job_id: JobId }),
  output: JobOut,
  userMessage: (args) => `Cancel job ${args.job_id}`,
});

export const waitJob = defineSpec({
  name: "wait_job",
  method: "wait",
  description:
    "Wait for a job to settle, up to wait_ms, and return it as it is then (status tells whether it finished).",
  category: "read",
  positional: ["job_id"],
  input: z.object({ job_id: JobId, wait_ms: z.number().int().min(0).max(55_000).default(20_000) }),
  output: JobOut,
});

export const jobsModule: ModuleSpecs = {
  name: "jobs",
  description: "Jobs: workflow runs with progress, outputs and cancellation.",
  specs: [listJobs, getJob, cancelJob, waitJob],
};
