/**
 * The workflow document model: a graph of typed nodes and edges. Used by the `workflows` specs, the
 * store, the editor and the `ui` document operations, so there is one shape everywhere.
 */
import { z } from "zod";

const Id = z.string().min(1).max(200);

export const GraphNode = z
  .object({
    id: Id,
    type: z.string().min(1).max(200),
    data: z.record(z.string(), z.unknown()).default({}),
    position: z.object({ x: z.number(), y: z.number() }).default({ x: 0, y: 0 }),
    title: z.string().max(500).optional(),
  })
  .meta({ id: "GraphNodeInput" });
export type GraphNode = z.infer<typeof GraphNode>;

export const GraphEdge = z
  .object({
    id: Id,
    source: Id,
    sourceHandle: z.string().max(200),
    target: Id,
    targetHandle: z.string().max(200),
  })
  .meta({ id: "GraphEdgeInput" });
export type GraphEdge = z.infer<typeof GraphEdge>;

export const Graph = z
  .object({
    nodes: z.array(GraphNode).max(10_000).default([]),
    edges: z.array(GraphEdge).max(50_000).default([]),
  })
  .meta({ id: "GraphInput", description: "A workflow graph: nodes, and edges from output handles to input handles" });
export type Graph = z.infer<typeof Graph>;

/** A graph as results give it: the same shapes, strict (a stored graph was parsed with `Graph`). */
export const GraphNodeOut = GraphNode.extend({ position: GraphNode.shape.position.unwrap().strict() })
  .strict()
  .meta({ id: "GraphNode" });
export const GraphEdgeOut = GraphEdge.strict().meta({ id: "GraphEdge" });
export const GraphOut = z
  .strictObject({ nodes: z.array(GraphNodeOut), edges: z.array(GraphEdgeOut) })
  .meta({ id: "Graph", description: "A workflow graph: nodes, and edges from output handles to input handles" });

export interface Workflow {
  id: string;
  name: string;
  description: string;
  graph: Graph;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface GraphProblem {
  kind: "duplicate_node_id" | "duplicate_edge_id" | "unknown_node" | "cycle";
  message: string;
}

/** Whether two node positions are the same point. */
export function samePosition(a: GraphNode["position"], b: GraphNode["position"]): boolean {
  return a.x === b.x && a.y === b.y;
}

/** Structural report: duplicate ids, edges naming missing nodes, cycles. */
export function validateGraph(graph: Graph): { valid: boolean; problems: GraphProblem[] } {
  const problems: GraphProblem[] = [];
  const nodeIds = new Set<string>();
  for (const node of graph.nodes) {
    if (nodeIds.has(node.id))
      problems.push({ kind: "duplicate_node_id", message: `node id "${node.id}" is used twice` });
    nodeIds.add(node.id);
  }
  const edgeIds = new Set<string>();
  for (const edge of graph.edges) {
    if (edgeIds.has(edge.id))
      problems.push({ kind: "duplicate_edge_id", message: `edge id "${edge.id}" is used twice` });
    edgeIds.add(edge.id);
    for (const end of [edge.source, edge.target]) {
      if (!nodeIds.has(end)) {
        problems.push({ kind: "unknown_node", message: `edge "${edge.id}" names node "${end}", which does not exist` });
      }
    }
  }
  const cycle = findCycle(graph);
  if (cycle) problems.push({ kind: "cycle", message: `the graph has a cycle: ${cycle.join(" -> ")}` });
  return { valid: problems.length === 0, problems };
}

/** One cycle as a list of node ids (first repeated at the end), or null. Iterative, so deep graphs are fine. */
export function findCycle(graph: Graph): string[] | null {
  const next = new Map<string, string[]>();
  for (const edge of graph.edges) {
    const list = next.get(edge.source) ?? [];
    list.push(edge.target);
    next.set(edge.source, list);
  }
  const state = new Map<string, 1 | 2>();
  for (const start of next.keys()) {
    if (state.has(start)) continue;
    const stack: { id: string; i: number }[] = [{ id: start, i: 0 }];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { id: string; i: number };
      const targets = next.get(top.id) ?? [];
      if (top.i >= targets.length) {
        state.set(top.id, 2);
        stack.pop();
        continue;
      }
      const target = targets[top.i++] as string;
      const seen = state.get(target);
      if (seen === 1) {
        const from = stack.findIndex((f) => f.id === target);
        return [...stack.slice(from).map((f) => f.id), target];
      }
      if (seen === undefined) {
        state.set(target, 1);
        stack.push({ id: target, i: 0 });
      }
    }
  }
  return null;
}

function dotId(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

/** Graphviz DOT for a workflow graph. */
export function toDigraph(name: string, graph: Graph): string {
  const lines = [`digraph ${dotId(name)} {`, "  rankdir=LR;"];
  for (const node of graph.nodes) {
    const label = node.title ? `${node.title} (${node.type})` : node.type;
    lines.push(`  ${dotId(node.id)} [label=${dotId(label)}];`);
  }
  for (const edge of graph.edges) {
    lines.push(
      `  ${dotId(edge.source)} -> ${dotId(edge.target)} [label=${dotId(`${edge.sourceHandle} -> ${edge.targetHandle}`)}];`,
    );
  }
  lines.push("}");
  return lines.join("\n");
}
