/** Specs of the `jobs` namespace: workflow runs, their progress, outputs and cancellation. Data only. */
import { z } from "zod";
import { defineSpec, type ModuleSpecs } from "../types.ts";

const JobId = z.string().min(1).max(200).describe("The job's id, from workflows.start or workflows.run");

export const listJobs = defineSpec({
  name: "list_jobs",
  method: "list",
  description: "List your jobs, newest first: id, workflow, status, progress, times, error.",
  category: "read",
  input: z.object({
    limit: z.number().int().min(1).max(200).default(20),
    status: z.enum(["queued", "running", "completed", "failed", "cancelled"]).optional(),
    workflow_id: z.string().min(1).max(200).optional(),
  }),
});

export const getJob = defineSpec({
  name: "get_job",
  method: "get",
  description:
    "Read one job: status, progress, outputs, the error naming the failing node, and each node's status and timing (with include_node_outputs, each node's outputs too).",
  category: "read",
  positional: ["job_id"],
  input: z.object({ job_id: JobId, include_node_outputs: z.boolean().default(false) }),
});

export const cancelJob = defineSpec({
  name: "cancel_job",
  method: "cancel",
  description:
    "Cancel a queued or running job; nodes that have not finished are stopped. A settled job is left as it is.",
  category: "write",
  positional: ["job_id"],
  input: z.object({ job_id: JobId }),
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
});

export const jobsModule: ModuleSpecs = {
  name: "jobs",
  description: "Jobs: workflow runs with progress, outputs and cancellation.",
  specs: [listJobs, getJob, cancelJob, waitJob],
};
