/**
 * Handle types on the canvas, derived from the node-type metadata: the typed inputs a node shows
 * (declared ones with a handle, plus the dynamic inputs its template or expression names), the type
 * of each handle, whether a connection fits (and why not), which node types could take the other
 * end of a dragged connection, and the kind of asset a node's output feeds.
 */
import type { Graph } from "../../../shared/graph/document.ts";
import {
  type AssetHandleType,
  canConnect,
  connectionProblem,
  findNodeType,
  type HandleType,
  isAssetType,
  NODE_TYPES,
  type NodeType,
  templateInputs,
} from "../../../shared/graph/node-types.ts";

export interface HandleInfo {
  name: string;
  type: HandleType;
  description: string;
}

/** A value the dynamic inputs read: a template's slots, or an expression's variables. */
function dynamicNames(values: Record<string, unknown>): string[] {
  if (typeof values.template === "string") return templateInputs(values.template);
  if (typeof values.expression === "string") {
    const names = values.expression.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
    const known = new Set(["pi", "e", ...FUNCTIONS]);
    return [...new Set(names.filter((n) => !known.has(n)))];
  }
  return [];
}

const FUNCTIONS = [
  "abs",
  "sqrt",
  "cbrt",
  "floor",
  "ceil",
  "round",
  "trunc",
  "sign",
  "exp",
  "log",
  "log2",
  "log10",
  "sin",
  "cos",
  "tan",
  "asin",
  "acos",
  "atan",
  "atan2",
  "min",
  "max",
  "pow",
  "hypot",
];

/** The connectable inputs of a node: declared ones with a handle, then its dynamic ones. */
export function inputHandles(type: string, values: Record<string, unknown>): HandleInfo[] {
  const meta = findNodeType(type);
  const declared: HandleInfo[] = (meta?.inputs ?? [])
    .filter((input) => input.handle !== false)
    .map((i) => ({ name: i.name, type: i.type, description: i.description }));
  if (meta?.dynamicInputs) {
    for (const name of dynamicNames(values)) {
      if (!declared.some((d) => d.name === name)) {
        declared.push({ name, type: meta.dynamicInputs.type, description: meta.dynamicInputs.description });
      }
    }
  }
  return declared;
}

export function outputHandles(type: string): HandleInfo[] {
  const meta = findNodeType(type);
  return meta ? [...meta.outputs] : [{ name: "output", type: "any", description: "" }];
}

/** The type of a handle of a node in the graph, or undefined when there is no such node or handle. */
export function handleType(
  graph: Graph,
  nodeId: string,
  handle: string | null | undefined,
  side: "source" | "target",
): HandleType | undefined {
  const node = graph.nodes.find((n) => n.id === nodeId);
  if (!node) return undefined;
  const handles = side === "source" ? outputHandles(node.type) : inputHandles(node.type, node.data);
  return handles.find((h) => h.name === (handle ?? (side === "source" ? "output" : "")))?.type;
}

/**
 * The kind of asset a node's output feeds, when every input it feeds takes the same kind (a workflow
 * input connected to an image input is an image: its run field and default pick an asset).
 */
export function assetFedBy(graph: Graph, nodeId: string): AssetHandleType | undefined {
  const kinds = new Set(
    graph.edges
      .filter((edge) => edge.source === nodeId)
      .map((edge) => handleType(graph, edge.target, edge.targetHandle, "target")),
  );
  const [kind] = kinds;
  return kinds.size === 1 && kind !== undefined && isAssetType(kind) ? kind : undefined;
}

/** Why a connection is refused (types that do not fit, an input already taken, a loop), or undefined. */
export function connectionRefusal(
  graph: Graph,
  c: { source: string; sourceHandle?: string | null; target: string; targetHandle?: string | null },
): string | undefined {
  if (c.source === c.target) return "A node cannot be connected to itself.";
  const from = handleType(graph, c.source, c.sourceHandle, "source");
  const to = handleType(graph, c.target, c.targetHandle, "target");
  if (!from || !to) return "That handle does not exist on the node.";
  const problem = connectionProblem(from, to);
  if (problem) return `Not connected: ${problem}`;
  if (graph.edges.some((e) => e.target === c.target && e.targetHandle === c.targetHandle)) {
    return `Not connected: input "${c.targetHandle}" already has an edge; delete it first.`;
  }
  return undefined;
}

/**
 * Node types that can take the other end of a connection dragged from a handle of type `type`: from
 * an output (`source`), types with a fitting input; from an input (`target`), types with a fitting
 * output. Each with the name of the first fitting handle.
 */
export function compatibleTypes(type: HandleType, from: "source" | "target"): { type: NodeType; handle: string }[] {
  const found: { type: NodeType; handle: string }[] = [];
  for (const candidate of NODE_TYPES) {
    const handles = from === "source" ? inputHandles(candidate.id, {}) : outputHandles(candidate.id);
    const fit = handles.find((h) => (from === "source" ? canConnect(type, h.type) : canConnect(h.type, type)));
    if (fit) found.push({ type: candidate, handle: fit.name });
  }
  return found;
}
