/** Specs of the `workflows` namespace: data only, no behaviour. */
import { z } from "zod";
import { Graph, GraphOut } from "../../graph/document.ts";
import { describeEffects } from "../../graph/node-types.ts";
import { DeletedOut, IsoTime } from "../outputs.ts";
import { defineSpec, type ModuleSpecs } from "../types.ts";
import { JobOut, JobStarted } from "./jobs.specs.ts";

const WorkflowId = z.string().min(1).max(200).describe("The workflow's id");
/** Refusals a person renaming a workflow in the editor reads as they are. */
const WorkflowName = z
  .string()
  .min(1, "A workflow needs a name; it cannot be empty.")
  .max(200, "A workflow's name can be at most 200 characters.");

const WorkflowSummary = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    version: z.number().int(),
    updated_at: IsoTime,
  })
  .meta({ id: "WorkflowSummary" });

/** A stored workflow with its graph. */
export const WorkflowOut = z
  .strictObject({ ...WorkflowSummary.shape, graph: GraphOut, created_at: IsoTime })
  .meta({ id: "Workflow", description: "A stored workflow with its graph" });

/** A job as a run that waited answers it: `hint` says how to go on waiting when it has not settled. */
export const WaitedJobOut = z
  .strictObject({
    ...JobOut.shape,
    hint: z.string().optional().describe("Present while the job is still queued or running"),
  })
  .meta({ id: "WaitedJob", description: "A job as a run that waited for it answers: a Job, and a hint while it runs" });

export const listWorkflows = defineSpec({
  name: "list_workflows",
  method: "list",
  description: "List the user's workflows, newest first: id, name, description, version, updated_at.",
  category: "read",
  input: z.object({
    limit: z.number().int().min(1).max(500).default(50),
    offset: z.number().int().min(0).default(0),
    query: z.string().max(200).optional().describe("Only workflows whose name contains this text"),
  }),
  output: z.strictObject({ workflows: z.array(WorkflowSummary), count: z.number().int() }),
});

export const getWorkflow = defineSpec({
  name: "get_workflow",
  method: "get",
  description:
    "Read one workflow with its graph and version; given version, that earlier version of it as it was saved (workflows.versions lists them).",
  category: "read",
  positional: ["workflow_id"],
  input: z.object({
    workflow_id: WorkflowId,
    version: z.number().int().min(1).optional().describe("An earlier version to read instead of the current one"),
  }),
  output: WorkflowOut,
});

export const createWorkflow = defineSpec({
  name: "create_workflow",
  method: "create",
  description: "Create a workflow from a name, an optional description and an optional graph.",
  category: "write",
  positional: ["name"],
  input: z.object({
    name: WorkflowName,
    description: z.string().max(10_000).default(""),
    graph: Graph.default({ nodes: [], edges: [] }),
  }),
  userMessage: (args) => `Create workflow "${args.name}"`,
  output: WorkflowOut,
});

export const updateWorkflow = defineSpec({
  name: "update_workflow",
  method: "update",
  description:
    "Change a workflow's name, description or graph. Pass expected_version (from get) to refuse a stale write.",
  category: "write",
  positional: ["workflow_id"],
  input: z.object({
    workflow_id: WorkflowId,
    name: WorkflowName.optional(),
    description: z.string().max(10_000).optional(),
    graph: Graph.optional(),
    expected_version: z.number().int().min(1).optional(),
  }),
  userMessage: (args) => `Update workflow ${args.workflow_id}`,
  output: WorkflowOut,
});

export const deleteWorkflow = defineSpec({
  name: "delete_workflow",
  method: "delete",
  description: "Delete a workflow.",
  category: "write",
  positional: ["workflow_id"],
  input: z.object({ workflow_id: WorkflowId }),
  userMessage: (args) => `Delete workflow ${args.workflow_id}`,
  output: DeletedOut,
});

export const listWorkflowVersions = defineSpec({
  name: "list_workflow_versions",
  method: "versions",
  description:
    "The earlier versions of a workflow kept (every update keeps the one it replaces; the newest 50 stay), newest first: version, name, description, when it was saved, its node and edge counts. Read one with workflows.get(workflow_id, { version }); to go back to it, update the workflow with its graph.",
  category: "read",
  positional: ["workflow_id"],
  input: z.object({ workflow_id: WorkflowId }),
  output: z.strictObject({
    versions: z.array(
      z.strictObject({
        version: z.number().int(),
        name: z.string(),
        description: z.string(),
        saved_at: IsoTime.describe("When this version was saved"),
        nodes: z.number().int(),
        edges: z.number().int(),
      }),
    ),
  }),
});

export const validateWorkflow = defineSpec({
  name: "validate_workflow",
  method: "validate",
  description:
    "Structural report on a workflow's graph (or a graph passed directly): duplicate ids, edges to unknown nodes, cycles.",
  category: "read",
  positional: ["workflow_id"],
  input: z
    .object({ workflow_id: WorkflowId.optional(), graph: Graph.optional() })
    .refine((v) => v.workflow_id !== undefined || v.graph !== undefined, {
      message: "pass workflow_id or graph",
    }),
  output: z.strictObject({
    valid: z.boolean(),
    problems: z.array(
      z.strictObject({
        kind: z.enum(["duplicate_node_id", "duplicate_edge_id", "unknown_node", "cycle"]),
        message: z.string(),
      }),
    ),
  }),
});

export const exportWorkflowDigraph = defineSpec({
  name: "export_workflow_digraph",
  method: "exportDigraph",
  description: "A workflow's graph as Graphviz DOT text.",
  category: "read",
  positional: ["workflow_id"],
  input: z.object({ workflow_id: WorkflowId }),
  output: z.strictObject({ dot: z.string().describe("Graphviz DOT text") }),
});

const RunInput = {
  workflow_id: WorkflowId.optional().describe("The stored workflow to run"),
  graph: Graph.optional().describe("A graph to run instead of the stored one (e.g. an unsaved edit)"),
  inputs: z
    .record(z.string(), z.unknown())
    .default({})
    .describe("Values for the graph's workflow.input nodes, by name"),
};
const needsGraph = {
  message: "pass workflow_id or graph",
} as const;
const hasGraph = (v: { workflow_id?: string | undefined; graph?: unknown }) =>
  v.workflow_id !== undefined || v.graph !== undefined;

/**
 * The approval line: what will run, and the non-read categories its node types use (when the graph is
 * in the arguments). `unnamed` names what runs when neither a graph nor a workflow id is given.
 */
export function describeRun(
  verb: string,
  args: { workflow_id?: string | undefined; graph?: Graph | undefined },
  unnamed = "a workflow",
): string {
  if (args.graph) {
    const what = args.workflow_id ? `workflow ${args.workflow_id} (with the graph given)` : "a workflow graph";
    return `${verb} ${what}: ${args.graph.nodes.length} nodes. ${describeEffects(args.graph.nodes.map((n) => n.type))}`;
  }
  const what = args.workflow_id === undefined ? unnamed : `workflow ${args.workflow_id}`;
  return `${verb} ${what}. Any write, execute or external effect of its nodes passes the gate on its own when it runs.`;
}

export const runWorkflow = defineSpec({
  name: "run_workflow",
  method: "run",
  description:
    "Run a workflow (stored, by workflow_id, or a graph) and wait for it, up to wait_ms. Returns the job: status, progress, outputs (workflow.output values by name; with none, the outputs of each node nothing reads), the error naming the failing node, and each node's status. A job still running when the wait ends keeps running: call jobs.wait(job_id).",
  category: "execute",
  positional: ["workflow_id"],
  input: z
    .object({
      ...RunInput,
      wait_ms: z.number().int().min(0).max(55_000).default(20_000).describe("How long to wait for the job to finish"),
    })
    .refine(hasGraph, needsGraph),
  userMessage: (args) => describeRun("Run", args),
  output: WaitedJobOut,
});

export const startWorkflow = defineSpec({
  name: "start_workflow",
  method: "start",
  description:
    "Start a workflow (stored, by workflow_id, or a graph) without waiting: returns the job id at once. Follow it with jobs.get, jobs.wait or the session's job events; stop it with jobs.cancel.",
  category: "execute",
  positional: ["workflow_id"],
  input: z.object(RunInput).refine(hasGraph, needsGraph),
  userMessage: (args) => describeRun("Start", args),
  output: JobStarted,
});

export const workflowsModule: ModuleSpecs = {
  name: "workflows",
  description: "Workflows: graphs of nodes the user builds and runs.",
  specs: [
    listWorkflows,
    getWorkflow,
    createWorkflow,
    updateWorkflow,
    deleteWorkflow,
    listWorkflowVersions,
    validateWorkflow,
    exportWorkflowDigraph,
    runWorkflow,
    startWorkflow,
  ],
};
