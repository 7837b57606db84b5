/** Specs of the `workflows` namespace: data only, no behaviour. */
import { z } from "zod";
import { Graph } from "../../graph/document.ts";
import { defineSpec, type ModuleSpecs } from "../types.ts";

const WorkflowId = z.string().min(1).max(200).describe("The workflow's id");

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
});

export const getWorkflow = defineSpec({
  name: "get_workflow",
  method: "get",
  description: "Read one workflow with its graph and version.",
  category: "read",
  positional: ["workflow_id"],
  input: z.object({ workflow_id: WorkflowId }),
});

export const createWorkflow = defineSpec({
  name: "create_workflow",
  method: "create",
  description: "Create a workflow from a name, an optional description and an optional graph.",
  category: "write",
  positional: ["name"],
  input: z.object({
    name: z.string().min(1).max(200),
    description: z.string().max(10_000).default(""),
    graph: Graph.default({ nodes: [], edges: [] }),
  }),
  userMessage: (args) => `Create workflow "${args.name}"`,
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
    name: z.string().min(1).max(200).optional(),
    description: z.string().max(10_000).optional(),
    graph: Graph.optional(),
    expected_version: z.number().int().min(1).optional(),
  }),
  userMessage: (args) => `Update workflow ${args.workflow_id}`,
});

export const deleteWorkflow = defineSpec({
  name: "delete_workflow",
  method: "delete",
  description: "Delete a workflow.",
  category: "write",
  positional: ["workflow_id"],
  input: z.object({ workflow_id: WorkflowId }),
  userMessage: (args) => `Delete workflow ${args.workflow_id}`,
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
});

export const exportWorkflowDigraph = defineSpec({
  name: "export_workflow_digraph",
  method: "exportDigraph",
  description: "A workflow's graph as Graphviz DOT text.",
  category: "read",
  positional: ["workflow_id"],
  input: z.object({ workflow_id: WorkflowId }),
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
    validateWorkflow,
    exportWorkflowDigraph,
  ],
};
