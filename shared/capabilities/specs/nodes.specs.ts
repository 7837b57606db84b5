/** Specs of the `nodes` namespace: the node types a workflow is built from, and one node run alone. */
import { z } from "zod";
import { describeEffects, HANDLE_TYPES } from "../../graph/node-types.ts";
import { JsonOut, UserJson } from "../outputs.ts";
import { CATEGORIES, defineSpec, type ModuleSpecs } from "../types.ts";

const HandleType = z.enum(HANDLE_TYPES);

/** A node type in a list: what `nodes.list` and `nodes.search` give. */
const NodeSummary = z
  .strictObject({ id: z.string(), family: z.string(), title: z.string(), description: z.string() })
  .meta({ id: "NodeSummary", description: "A node type in a list" });

const NodeInfo = z.strictObject({
  id: z.string(),
  family: z.string(),
  title: z.string(),
  description: z.string(),
  inputs: z.array(
    z.strictObject({
      name: z.string(),
      type: HandleType,
      description: z.string(),
      default: JsonOut.optional(),
      required: z.boolean().optional(),
      handle: z.literal(false).optional().describe("false: a property set in node.data only, never connected"),
      options: z.array(z.string()).optional(),
      min: z.number().optional(),
      max: z.number().optional(),
    }),
  ),
  outputs: z.array(z.strictObject({ name: z.string(), type: HandleType, description: z.string() })),
  dynamicInputs: z.strictObject({ type: HandleType, description: z.string() }).optional(),
  effects: z.array(z.strictObject({ capability: z.string(), category: z.enum(CATEGORIES) })).optional(),
  note: z.literal(true).optional().describe("true: a note for people on the canvas; it never runs or connects"),
});

const NodeTypeId = z.string().min(1).max(200).describe("A node type id such as text.template");

export const listNodes = defineSpec({
  name: "list_nodes",
  method: "list",
  description: "List the node types: id, title, description. Pass family (text, math, json, list, ...) to narrow it.",
  category: "read",
  input: z.object({ family: z.string().min(1).max(100).optional() }),
  output: z.strictObject({ nodes: z.array(NodeSummary), count: z.number().int() }),
});

export const searchNodes = defineSpec({
  name: "search_nodes",
  method: "search",
  description: "Find node types whose id, title or description contain every word of the query, best first.",
  category: "read",
  positional: ["query"],
  input: z.object({ query: z.string().max(200), limit: z.number().int().min(1).max(100).default(20) }),
  output: z.strictObject({ nodes: z.array(NodeSummary) }),
});

export const getNodeInfo = defineSpec({
  name: "get_node_info",
  method: "info",
  description:
    "A node type's metadata: its inputs (name, type, default, required, whether it is a property set only in data) and outputs (the handles to connect), dynamic inputs, and the capabilities it calls.",
  category: "read",
  positional: ["node_type"],
  input: z.object({ node_type: NodeTypeId }),
  output: NodeInfo,
});

export const runNode = defineSpec({
  name: "run_node",
  method: "run",
  description:
    "Run one node on its own with the given inputs (as node.data would set them) and return its outputs. Effects it has go through the gate like any call.",
  category: "execute",
  positional: ["node_type"],
  input: z.object({
    node_type: NodeTypeId,
    inputs: z.record(z.string(), z.unknown()).default({}),
  }),
  userMessage: (args) => `Run node ${args.node_type} on its own. ${describeEffects([args.node_type])}`,
  output: z.strictObject({ node_type: z.string(), outputs: z.record(z.string(), UserJson) }),
});

export const nodesModule: ModuleSpecs = {
  name: "nodes",
  description: "Node types: what a workflow graph is built from; run one node on its own.",
  specs: [listNodes, searchNodes, getNodeInfo, runNode],
};
