/** Implementations of the `workflows` namespace on the SQLite store. */

import {
  createWorkflow,
  deleteWorkflow,
  exportWorkflowDigraph,
  getWorkflow,
  listWorkflows,
  runWorkflow,
  startWorkflow,
  updateWorkflow,
  validateWorkflow,
} from "../../shared/capabilities/specs/workflows.specs.ts";
import { type Graph, toDigraph, validateGraph } from "../../shared/graph/document.ts";
import { engineOf } from "../engine/jobs.ts";
import { WorkflowStore } from "../store/workflows.ts";
import { implement, type ServerRun } from "./define.ts";

/** The graph to run: the one given, else the stored workflow's (which must be this user's either way). */
function graphToRun(run: ServerRun, args: { workflow_id?: string | undefined; graph?: Graph | undefined }): Graph {
  const stored =
    args.workflow_id === undefined
      ? undefined
      : new WorkflowStore(run.services.store).require(run.context.user_id, args.workflow_id);
  return args.graph ?? stored?.graph ?? { nodes: [], edges: [] };
}

export default [
  implement(listWorkflows, async (run, args) => {
    const items = new WorkflowStore(run.services.store).list(run.context.user_id, args);
    return { workflows: items, count: items.length };
  }),
  implement(getWorkflow, async (run, args) =>
    new WorkflowStore(run.services.store).require(run.context.user_id, args.workflow_id),
  ),
  implement(createWorkflow, async (run, args) =>
    new WorkflowStore(run.services.store).create(run.context.user_id, args),
  ),
  implement(updateWorkflow, async (run, args) =>
    new WorkflowStore(run.services.store).update(run.context.user_id, args),
  ),
  implement(deleteWorkflow, async (run, args) => {
    new WorkflowStore(run.services.store).delete(run.context.user_id, args.workflow_id);
    return { deleted: args.workflow_id };
  }),
  implement(validateWorkflow, async (run, args) => {
    const graph =
      args.graph ?? new WorkflowStore(run.services.store).require(run.context.user_id, args.workflow_id ?? "").graph;
    return validateGraph(graph);
  }),
  implement(exportWorkflowDigraph, async (run, args) => {
    const workflow = new WorkflowStore(run.services.store).require(run.context.user_id, args.workflow_id);
    return { dot: toDigraph(workflow.name, workflow.graph) };
  }),
  implement(runWorkflow, async (run, args) => {
    const engine = engineOf(run);
    const started = engine.start(run, {
      graph: graphToRun(run, args),
      workflowId: args.workflow_id,
      inputs: args.inputs,
    });
    const job = await engine.wait(run.context.user_id, started.job_id, args.wait_ms, run.context.signal);
    if (job.status !== "queued" && job.status !== "running") return job;
    return {
      ...job,
      hint: `Still ${job.status} after ${args.wait_ms} ms; it keeps running. Call jobs.wait("${job.job_id}") for the result.`,
    };
  }),
  implement(startWorkflow, async (run, args) => {
    const job = engineOf(run).start(run, {
      graph: graphToRun(run, args),
      workflowId: args.workflow_id,
      inputs: args.inputs,
    });
    return { job_id: job.job_id, status: job.status, progress: job.progress };
  }),
];
