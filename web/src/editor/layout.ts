/**
 * `Auto layout`: arranges the graph left to right with dagre (a layered layout: every edge points
 * right), using each node's measured size. Answers the moves to make, one per node that moves.
 */
import dagre from "@dagrejs/dagre";
import type { Graph } from "../../../shared/graph/document.ts";

export interface Size {
  width: number;
  height: number;
}

const FALLBACK: Size = { width: 180, height: 90 };

export function autoLayout(
  graph: Graph,
  sizes: ReadonlyMap<string, Size>,
): { node_id: string; x: number; y: number }[] {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 80, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes) g.setNode(node.id, { ...(sizes.get(node.id) ?? FALLBACK) });
  for (const edge of graph.edges) g.setEdge(edge.source, edge.target);
  dagre.layout(g);
  const moves: { node_id: string; x: number; y: number }[] = [];
  for (const node of graph.nodes) {
    const laid = g.node(node.id);
    const size = sizes.get(node.id) ?? FALLBACK;
    // dagre places centres; React Flow positions are top-left corners.
    const x = Math.round(laid.x - size.width / 2);
    const y = Math.round(laid.y - size.height / 2);
    if (x !== node.position.x || y !== node.position.y) moves.push({ node_id: node.id, x, y });
  }
  return moves;
}
