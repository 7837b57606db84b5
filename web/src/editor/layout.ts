/**
 * `Auto layout`: arranges the graph left to right with dagre (a layered layout: every edge points
 * right), using each node's measured size. Answers the moves to make, one per node that moves.
 */
import dagre from "@dagrejs/dagre";
import type { Graph, GraphNode } from "../../../shared/graph/document.ts";
import { findNodeType } from "../../../shared/graph/node-types.ts";

export interface Size {
  width: number;
  height: number;
}

/**
 * A node's size before React Flow has measured it (an action's node not drawn yet): as wide as a node
 * may grow (editor.css), and a header plus one row per input and output.
 */
function estimatedSize(node: GraphNode, graph: Graph): Size {
  const type = findNodeType(node.type);
  const fixed = new Set(type?.inputs.map((input) => input.name));
  const dynamic = new Set(
    graph.edges.filter((e) => e.target === node.id && !fixed.has(e.targetHandle)).map((e) => e.targetHandle),
  );
  const rows = fixed.size + dynamic.size + (type?.outputs.length ?? 1);
  return { width: 240, height: 44 + 22 * rows };
}

export function autoLayout(
  graph: Graph,
  sizes: ReadonlyMap<string, Size>,
): { node_id: string; x: number; y: number }[] {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 80, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  const sizeOf = (node: GraphNode) => sizes.get(node.id) ?? estimatedSize(node, graph);
  for (const node of graph.nodes) g.setNode(node.id, { ...sizeOf(node) });
  for (const edge of graph.edges) g.setEdge(edge.source, edge.target);
  dagre.layout(g);
  // Top-left corners (dagre places centres; React Flow positions are corners).
  const at = new Map<string, { x: number; y: number; height: number }>();
  for (const node of graph.nodes) {
    const laid = g.node(node.id);
    const size = sizeOf(node);
    at.set(node.id, { x: laid.x - size.width / 2, y: laid.y - size.height / 2, height: size.height });
  }
  followHandles(graph, at);
  const moves: { node_id: string; x: number; y: number }[] = [];
  for (const node of graph.nodes) {
    const corner = at.get(node.id);
    const x = Math.round(corner?.x ?? 0);
    const y = Math.round(corner?.y ?? 0);
    if (x !== node.position.x || y !== node.position.y) moves.push({ node_id: node.id, x, y });
  }
  return moves;
}

/**
 * dagre orders each column without knowing the handles, so `a` may stand below `b` while feeding the
 * input above it, and their edges cross. Reorders each column, right to left, by where its nodes'
 * edges arrive (the target's height, then the input's place on it), keeping the column's gaps.
 */
function followHandles(graph: Graph, at: Map<string, { x: number; y: number; height: number }>): void {
  const columns = new Map<number, string[]>();
  for (const [id, corner] of at) {
    const key = Math.round(corner.x);
    columns.set(key, [...(columns.get(key) ?? []), id]);
  }
  const handleIndex = (nodeId: string, handle: string) => {
    const type = graph.nodes.find((n) => n.id === nodeId)?.type;
    const index = findNodeType(type ?? "")?.inputs.findIndex((input) => input.name === handle) ?? -1;
    return index === -1 ? Number.MAX_SAFE_INTEGER : index;
  };
  for (const key of [...columns.keys()].sort((a, b) => b - a)) {
    const ids = (columns.get(key) ?? []).sort((a, b) => (at.get(a)?.y ?? 0) - (at.get(b)?.y ?? 0));
    if (ids.length < 2) continue;
    const arrival = (id: string): [number, number] => {
      let best: [number, number] = [at.get(id)?.y ?? 0, -1];
      let found = false;
      for (const edge of graph.edges) {
        const target = at.get(edge.target);
        if (edge.source !== id || !target) continue;
        const here: [number, number] = [target.y, handleIndex(edge.target, edge.targetHandle)];
        if (!found || here[0] < best[0] || (here[0] === best[0] && here[1] < best[1])) best = here;
        found = true;
      }
      return best;
    };
    const keys = new Map(ids.map((id) => [id, arrival(id)]));
    const ordered = [...ids].sort((a, b) => {
      const [ya, ha] = keys.get(a) ?? [0, 0];
      const [yb, hb] = keys.get(b) ?? [0, 0];
      return ya - yb || ha - hb;
    });
    if (ordered.every((id, i) => id === ids[i])) continue;
    // The same gaps, top to bottom, between the nodes in their new order.
    const gaps = ids.slice(1).map((id, i) => {
      const above = at.get(ids[i] as string);
      return (at.get(id)?.y ?? 0) - ((above?.y ?? 0) + (above?.height ?? 0));
    });
    let top = at.get(ids[0] as string)?.y ?? 0;
    ordered.forEach((id, i) => {
      const corner = at.get(id);
      if (!corner) return;
      corner.y = top;
      top += corner.height + (gaps[i] ?? 0);
    });
  }
}
