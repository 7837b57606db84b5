/**
 * `Auto layout`: arranges the graph left to right with dagre (a layered layout: every edge points
 * right), using each node's measured size. Answers the moves to make, one per node that moves.
 */
import dagre from "@dagrejs/dagre";
import { type Graph, type GraphEdge, type GraphNode, samePosition } from "../../../shared/graph/document.ts";
import { inputHandles, outputHandles } from "./handles.ts";

export interface Size {
  width: number;
  height: number;
}

/**
 * A node's size before React Flow has measured it (an action's node not drawn yet): as wide as a node
 * may grow (editor.css), and a header plus one row per handle, as WorkflowNode draws them.
 */
function estimatedSize(node: GraphNode): Size {
  const rows = inputHandles(node.type, node.data).length + outputHandles(node.type).length;
  return { width: 240, height: 44 + 22 * rows };
}

/** A node as laid out: its top-left corner (React Flow's position) and its height. */
interface Placed {
  node: GraphNode;
  x: number;
  y: number;
  height: number;
}

export function autoLayout(
  graph: Graph,
  sizes: ReadonlyMap<string, Size>,
): { node_id: string; x: number; y: number }[] {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 80, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  const sizeOf = (node: GraphNode) => sizes.get(node.id) ?? estimatedSize(node);
  for (const node of graph.nodes) g.setNode(node.id, { ...sizeOf(node) });
  for (const edge of graph.edges) g.setEdge(edge.source, edge.target);
  dagre.layout(g);
  // dagre places centres; React Flow positions are top-left corners.
  const placed = graph.nodes.map((node): Placed => {
    const laid = g.node(node.id);
    const size = sizeOf(node);
    return { node, x: laid.x - size.width / 2, y: laid.y - size.height / 2, height: size.height };
  });
  followHandles(graph, placed);
  const moves: { node_id: string; x: number; y: number }[] = [];
  for (const { node, x, y } of placed) {
    const at = { x: Math.round(x), y: Math.round(y) };
    if (!samePosition(at, node.position)) moves.push({ node_id: node.id, ...at });
  }
  return moves;
}

/**
 * dagre orders each column without knowing the handles, so `a` may stand below `b` while feeding the
 * input above it, and their edges cross. Reorders each column, right to left, by where its nodes'
 * edges arrive (the target's height, then the input's place on it), keeping the column's gaps.
 */
function followHandles(graph: Graph, placed: Placed[]): void {
  const byId = new Map(placed.map((p) => [p.node.id, p]));
  const inputIndex = (edge: GraphEdge, target: Placed) => {
    const index = inputHandles(target.node.type, target.node.data).findIndex((h) => h.name === edge.targetHandle);
    return index === -1 ? Number.MAX_SAFE_INTEGER : index;
  };
  /** Higher on the page first, then the earlier input. */
  const higher = (a: [number, number], b: [number, number]) => a[0] - b[0] || a[1] - b[1];
  /** The highest place a node's edges arrive at; a node with none keeps its own height. */
  const arrival = (p: Placed): [number, number] => {
    const arrivals = graph.edges.flatMap((edge): [number, number][] => {
      const target = edge.source === p.node.id ? byId.get(edge.target) : undefined;
      return target ? [[target.y, inputIndex(edge, target)]] : [];
    });
    return arrivals.sort(higher)[0] ?? [p.y, -1];
  };
  const columns = new Map<number, Placed[]>();
  for (const p of placed) columns.set(Math.round(p.x), [...(columns.get(Math.round(p.x)) ?? []), p]);
  for (const key of [...columns.keys()].sort((a, b) => b - a)) {
    const column = (columns.get(key) ?? []).sort((a, b) => a.y - b.y);
    const arrivals = new Map(column.map((p) => [p, arrival(p)]));
    const rank = (p: Placed) => arrivals.get(p) ?? [p.y, -1];
    const ordered = [...column].sort((a, b) => higher(rank(a), rank(b)));
    if (ordered.every((p, i) => p === column[i])) continue;
    // The same gaps, top to bottom, between the nodes in their new order.
    const gaps = column.slice(1).map((p, i) => p.y - ((column[i]?.y ?? 0) + (column[i]?.height ?? 0)));
    let top = column[0]?.y ?? 0;
    ordered.forEach((p, i) => {
      p.y = top;
      top += p.height + (gaps[i] ?? 0);
    });
  }
}
