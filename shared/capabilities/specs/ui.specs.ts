/**
 * Specs of the `ui` namespace: edits of the workflow open in the page's editor. Data only. In the page
 * the server authorises each call and the page applies it; without an editor, document tools act on the
 * stored workflow named by `workflow_id` and steering tools answer `capability_unavailable`.
 */
import { z } from "zod";
import { RENDERERS } from "../../graph/catalog-search.ts";
import { Graph, GraphEdge, GraphEdgeOut, GraphNode, GraphNodeOut } from "../../graph/document.ts";
import { UserJson } from "../outputs.ts";
import { defineSpec, type ModuleSpecs } from "../types.ts";
import { describeRun, WaitedJobOut } from "./workflows.specs.ts";

const WorkflowId = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe("The workflow to edit; omit it to edit the workflow open in the editor (needed when none is open)");
const NodeId = z.string().min(1).max(200);
const Position = z.object({ x: z.number().finite(), y: z.number().finite() });
const Data = z.record(z.string(), z.unknown());

/**
 * What an edit answers, plus where it landed when no editor was connected and the stored workflow
 * was changed instead (the editor's own edits stay an unsaved draft, so they carry neither).
 */
function edited<TShape extends z.ZodRawShape>(shape: TShape) {
  return z.strictObject({
    ...shape,
    workflow_id: z.string().optional().describe("The stored workflow edited (when no editor was connected)"),
    version: z.number().int().optional().describe("Its version after the edit"),
  });
}

const NodesAndEdges = z.strictObject({ nodes: z.array(GraphNodeOut), edges: z.array(GraphEdgeOut) });
const NodeHit = z.strictObject({ id: z.string(), title: z.string(), description: z.string() });

export const uiGetGraph = defineSpec({
  name: "ui_get_graph",
  method: "getGraph",
  description:
    'The nodes and edges of the open workflow (or of workflow_id), and the ids of the nodes the person has selected in the editor (what "this node" or "these" mean).',
  category: "read",
  input: z.object({ workflow_id: WorkflowId }),
  output: NodesAndEdges.extend({
    selected: z
      .array(z.string())
      .optional()
      .describe("The ids of the nodes selected in the editor (absent when no editor has the workflow open)"),
  }),
});

export const uiAddNode = defineSpec({
  name: "ui_add_node",
  method: "addNode",
  description:
    "Add a node of a node type; returns its id. Without a position it goes right of the others; the editor lays out a graph an action builds from nothing unplaced.",
  category: "write",
  positional: ["node_type"],
  input: z.object({
    workflow_id: WorkflowId,
    node_type: z.string().min(1).max(200),
    node_id: NodeId.optional(),
    data: Data.optional(),
    position: Position.optional(),
    title: z.string().max(500).optional(),
  }),
  userMessage: (args) => `Add a ${args.node_type} node${args.node_id ? ` "${args.node_id}"` : ""} to the workflow`,
  output: edited({ node_id: z.string() }),
});

export const uiConnectNodes = defineSpec({
  name: "ui_connect_nodes",
  method: "connect",
  description: "Connect an output handle of one node to an input handle of another; returns the edge id.",
  category: "write",
  input: z.object({
    workflow_id: WorkflowId,
    source: NodeId,
    source_handle: z.string().min(1).max(200).default("output"),
    target: NodeId,
    target_handle: z.string().min(1).max(200),
    edge_id: NodeId.optional(),
  }),
  userMessage: (args) => `Connect ${args.source}.${args.source_handle} -> ${args.target}.${args.target_handle}`,
  output: edited({ edge_id: z.string() }),
});

export const uiUpdateNodeData = defineSpec({
  name: "ui_update_node_data",
  method: "updateNodeData",
  description: "Merge values into a node's data (its properties and unconnected inputs).",
  category: "write",
  positional: ["node_id"],
  input: z.object({ workflow_id: WorkflowId, node_id: NodeId, data: Data }),
  userMessage: (args) => `Change the data of node ${args.node_id}`,
  output: edited({ node_id: z.string(), data: z.record(z.string(), UserJson) }),
});

export const uiDeleteNode = defineSpec({
  name: "ui_delete_node",
  method: "deleteNode",
  description: "Delete a node and the edges attached to it.",
  category: "write",
  positional: ["node_id"],
  input: z.object({ workflow_id: WorkflowId, node_id: NodeId }),
  userMessage: (args) => `Delete node ${args.node_id}`,
  output: edited({ deleted: z.string(), deleted_edges: z.array(z.string()) }),
});

export const uiDeleteEdge = defineSpec({
  name: "ui_delete_edge",
  method: "deleteEdge",
  description: "Delete an edge.",
  category: "write",
  positional: ["edge_id"],
  input: z.object({ workflow_id: WorkflowId, edge_id: NodeId }),
  userMessage: (args) => `Delete edge ${args.edge_id}`,
  output: edited({ deleted: z.string() }),
});

export const uiMoveNode = defineSpec({
  name: "ui_move_node",
  method: "moveNode",
  description: "Move a node to a position on the canvas.",
  category: "write",
  positional: ["node_id"],
  input: z.object({ workflow_id: WorkflowId, node_id: NodeId, x: z.number().finite(), y: z.number().finite() }),
  userMessage: (args) => `Move node ${args.node_id} to (${args.x}, ${args.y})`,
  output: edited({ node_id: z.string(), position: z.strictObject({ x: z.number(), y: z.number() }) }),
});

export const uiSetNodeTitle = defineSpec({
  name: "ui_set_node_title",
  method: "setNodeTitle",
  description: "Set the title shown on a node.",
  category: "write",
  positional: ["node_id"],
  input: z.object({ workflow_id: WorkflowId, node_id: NodeId, title: z.string().max(500) }),
  userMessage: (args) => `Rename node ${args.node_id} to "${args.title}"`,
  output: edited({ node_id: z.string(), title: z.string() }),
});

export const uiOpenWorkflow = defineSpec({
  name: "ui_open_workflow",
  method: "openWorkflow",
  description: "Open a workflow in the editor.",
  category: "read",
  positional: ["workflow_id"],
  needs: ["client"],
  input: z.object({ workflow_id: z.string().min(1).max(200) }),
  output: z.strictObject({ workflow_id: z.string(), name: z.string(), version: z.number().int() }),
});

export const uiSwitchTab = defineSpec({
  name: "ui_switch_tab",
  method: "switchTab",
  description: "Show a tab of the page: 'editor' or 'panel'.",
  category: "read",
  positional: ["tab"],
  needs: ["client"],
  input: z.object({ tab: z.enum(["editor", "panel"]) }),
  output: z.strictObject({ tab: z.enum(["editor", "panel"]) }),
});

export const uiSearchNodes = defineSpec({
  name: "ui_search_nodes",
  method: "searchNodes",
  description: "Search the node palette (node types) by words in their id, title or description.",
  category: "read",
  positional: ["query"],
  input: z.object({ query: z.string().min(1).max(200), limit: z.number().int().min(1).max(100).default(20) }),
  output: z.strictObject({ nodes: z.array(NodeHit) }),
});

export const uiCopy = defineSpec({
  name: "ui_copy",
  method: "copy",
  description: "Copy nodes (and the edges between them) as a fragment that ui.paste takes.",
  category: "read",
  input: z.object({ workflow_id: WorkflowId, node_ids: z.array(NodeId).min(1).max(1000) }),
  output: NodesAndEdges.describe("A fragment for ui.paste"),
});

export const uiPaste = defineSpec({
  name: "ui_paste",
  method: "paste",
  description: "Paste a fragment from ui.copy with fresh ids, shifted by offset.",
  category: "write",
  input: z.object({
    workflow_id: WorkflowId,
    fragment: z.object({ nodes: z.array(GraphNode).max(1000), edges: z.array(GraphEdge).max(5000) }),
    offset: Position.default({ x: 40, y: 40 }),
  }),
  userMessage: (args) => `Paste ${args.fragment.nodes.length} node(s) into the workflow`,
  output: edited({ node_ids: z.array(z.string()), edge_ids: z.array(z.string()) }),
});

export const uiRunWorkflow = defineSpec({
  name: "ui_run_workflow",
  method: "runWorkflow",
  description:
    "Run the workflow open in the editor, as it is on screen (saved or not), and wait for it up to wait_ms; the panel shows its progress. Returns the job like workflows.run: status, outputs, the error naming the failing node. Without an editor, pass workflow_id to run the stored workflow.",
  category: "execute",
  positional: ["workflow_id"],
  input: z.object({
    workflow_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("A stored workflow to run; omit it to run the workflow open in the editor"),
    inputs: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Values for the graph's workflow.input nodes, by name"),
    wait_ms: z.number().int().min(0).max(55_000).default(20_000).describe("How long to wait for the job to finish"),
    graph: Graph.optional().describe(
      "Set by the editor: the graph on screen, so the approval lists what it will use. An action leaves it out (to run a graph of your own, use workflows.run).",
    ),
  }),
  userMessage: (args) => describeRun("Run", args, "the workflow open in the editor"),
  output: WaitedJobOut,
});

export const listRenderers = defineSpec({
  name: "list_renderers",
  method: "renderers",
  description: "The kinds of output the page can render (name and what values it shows).",
  category: "read",
  input: z.object({}),
  output: z.strictObject({
    renderers: z.array(z.strictObject({ name: z.enum(RENDERERS.map((r) => r.name)), description: z.string() })),
  }),
});

export const uiModule: ModuleSpecs = {
  name: "ui",
  description: "The workflow editor in the page: read and edit the open workflow, steer the editor.",
  specs: [
    uiGetGraph,
    uiAddNode,
    uiConnectNodes,
    uiUpdateNodeData,
    uiDeleteNode,
    uiDeleteEdge,
    uiMoveNode,
    uiSetNodeTitle,
    uiOpenWorkflow,
    uiSwitchTab,
    uiSearchNodes,
    uiCopy,
    uiPaste,
    uiRunWorkflow,
    listRenderers,
  ],
};
