/** Implementations of the `workflows` namespace on the SQLite store. */

import {
  createWorkflow,
  deleteWorkflow,
  exportWorkflowDigraph,
  getWorkflow,
  listWorkflows,
  listWorkflowVersions,
  runWorkflow,
  startWorkflow,
  updateWorkflow,
  validateWorkflow,
} from "../../shared/capabilities/specs/workflows.specs.ts";
import { toDigraph, validateGraph } from "../../shared/graph/document.ts";
import { runWorkflowJob, startWorkflowJob } from "../engine/run-workflow.ts";
import { implement } from "./define.ts";
import { workflowsOf } from "./workflow-store.ts";

export default [
  implement(listWorkflows, async (run, args) => {
    const items = await workflowsOf(run).list(run.context.user_id, args);
    return { workflows: items, count: items.length };
  }),
  implement(getWorkflow, async (run, args) => {
    const workflows = workflowsOf(run);
    if (args.version === undefined) return workflows.require(run.context.user_id, args.workflow_id);
    return workflows.version(run.context.user_id, args.workflow_id, args.version);
  }),
  implement(createWorkflow, async (run, args) => workflowsOf(run).create(run.context.user_id, args)),
  implement(updateWorkflow, async (run, args) => workflowsOf(run).update(run.context.user_id, args)),
  implement(deleteWorkflow, async (run, args) => {
    await workflowsOf(run).delete(run.context.user_id, args.workflow_id);
    return { deleted: args.workflow_id };
  }),
  implement(listWorkflowVersions, async (run, args) => ({
    versions: await workflowsOf(run).versions(run.context.user_id, args.workflow_id),
  })),
  implement(validateWorkflow, async (run, args) => {
    const graph = args.graph ?? (await workflowsOf(run).require(run.context.user_id, args.workflow_id ?? "")).graph;
    return validateGraph(graph);
  }),
  implement(exportWorkflowDigraph, async (run, args) => {
    const workflow = await workflowsOf(run).require(run.context.user_id, args.workflow_id);
    return { dot: toDigraph(workflow.name, workflow.graph) };
  }),
  implement(runWorkflow, (run, args) => runWorkflowJob(run, args)),
  implement(startWorkflow, async (run, args) => {
    const job = await startWorkflowJob(run, args);
    return { job_id: job.job_id, status: job.status, progress: job.progress };
  }),
];
