/**
 * Starting a workflow run from a capability's arguments: the one path `workflows.run_workflow`,
 * `workflows.start_workflow`, the `ui_run_workflow` fallback and the editor's `run.startJob` share,
 * so a stored workflow and an editor's graph run (and are checked) the same way everywhere.
 */
import type { Actor } from "../../shared/capabilities/types.ts";
import type { Graph } from "../../shared/graph/document.ts";
import type { ServerRun } from "../capabilities/define.ts";
import { WorkflowStore } from "../store/workflows.ts";
import type { JobView } from "./job-store.ts";
import { engineOf } from "./jobs.ts";

export interface WorkflowRunArgs {
  workflow_id?: string | undefined;
  graph?: Graph | undefined;
  inputs: Record<string, unknown>;
}

/** The graph to run: the one given, else the stored workflow's (which must be this user's either way). */
async function graphToRun(run: ServerRun, args: WorkflowRunArgs): Promise<Graph> {
  const stored =
    args.workflow_id === undefined
      ? undefined
      : await new WorkflowStore(run.services.store).require(run.context.user_id, args.workflow_id);
  return args.graph ?? stored?.graph ?? { nodes: [], edges: [] };
}

/**
 * Validates and queues the job; answers at once (status `queued` or `running`). `actor` is whose act
 * the job's effects are (default the agent's: each passes the gate on its own).
 */
export async function startWorkflowJob(
  run: ServerRun,
  args: WorkflowRunArgs,
  actor: Actor = "agent",
): Promise<JobView> {
  return engineOf(run).start(run, {
    graph: await graphToRun(run, args),
    workflowId: args.workflow_id,
    inputs: args.inputs,
    actor,
  });
}

/** Starts the job and waits up to `wait_ms`; a job still running then carries a hint to wait on. */
export async function runWorkflowJob(
  run: ServerRun,
  args: WorkflowRunArgs & { wait_ms: number },
): Promise<JobView & { hint?: string }> {
  const started = await startWorkflowJob(run, args);
  const job = await engineOf(run).wait(run.context.user_id, started.job_id, args.wait_ms, run.context.signal);
  if (job.status !== "queued" && job.status !== "running") return job;
  return {
    ...job,
    hint: `Still ${job.status} after ${args.wait_ms} ms; it keeps running. Call jobs.wait("${job.job_id}") for the result.`,
  };
}
