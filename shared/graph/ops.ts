/**
 * The `ui` document operations: pure functions over a workflow graph, one per document capability.
 * The page applies them to the open editor (after the server authorised the call); the server applies
 * them to a stored workflow when no editor is connected. Same code, same results, both sides.
 * Operations never mutate their input: they return the next graph and what the call answers.
 */
import type { Graph, GraphEdge, GraphNode } from "./document.ts";

export type OpResult = { ok: true; graph: Graph; value: unknown } | { ok: false; message: string };

export interface Fragment {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** The wire names of the operations that change or read a document (not steering tools). */
export const DOCUMENT_OPS = [
  "ui_get_graph",
  "ui_add_node",
  "ui_connect_nodes",
  "ui_update_node_data",
  "ui_delete_node",
  "ui_delete_edge",
  "ui_move_node",
  "ui_set_node_title",
  "ui_copy",
  "ui_paste",
] as const;
export type DocumentOp = (typeof DOCUMENT_OPS)[number];

export function isDocumentOp(name: string): name is DocumentOp {
  return (DOCUMENT_OPS as readonly string[]).includes(name);
}

function fail(message: string): OpResult {
  return { ok: false, message };
}

function node(graph: Graph, id: string): GraphNode | undefined {
  return graph.nodes.find((n) => n.id === id);
}

function missingNode(id: string): OpResult {
  return fail(`There is no node "${id}" in this workflow. Call ui.getGraph() to see the node ids.`);
}

/** A fresh id from a base, unique among `taken`: `text_template`, `text_template_2`, ... */
export function freshId(base: string, taken: ReadonlySet<string>): string {
  const clean = base.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "") || "node";
  if (!taken.has(clean)) return clean;
  for (let i = 2; ; i++) if (!taken.has(`${clean}_${i}`)) return `${clean}_${i}`;
}

type Args = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Applies one document operation by wire name. Arguments were validated by the capability's schema. */
export function applyOp(graph: Graph, op: DocumentOp, args: Args): OpResult {
  switch (op) {
    case "ui_get_graph":
      return { ok: true, graph, value: { nodes: graph.nodes, edges: graph.edges } };
    case "ui_add_node": {
      const type = str(args.node_type) ?? "";
      const ids = new Set(graph.nodes.map((n) => n.id));
      const wanted = str(args.node_id);
      if (wanted !== undefined && ids.has(wanted))
        return fail(`A node with id "${wanted}" already exists; pick another id or omit it.`);
      const id = wanted ?? freshId(type.replace(/\./g, "_"), ids);
      const position = (args.position as { x: number; y: number } | undefined) ?? nextPosition(graph);
      const added: GraphNode = { id, type, data: { ...((args.data as Args | undefined) ?? {}) }, position };
      const title = str(args.title);
      if (title !== undefined) added.title = title;
      return { ok: true, graph: { ...graph, nodes: [...graph.nodes, added] }, value: { node_id: id } };
    }
    case "ui_connect_nodes": {
      const source = str(args.source) ?? "";
      const target = str(args.target) ?? "";
      const sourceHandle = str(args.source_handle) ?? "output";
      const targetHandle = str(args.target_handle) ?? "";
      if (!node(graph, source)) return missingNode(source);
      if (!node(graph, target)) return missingNode(target);
      if (source === target) return fail("A node cannot be connected to itself.");
      if (graph.edges.some((e) => e.target === target && e.targetHandle === targetHandle)) {
        return fail(
          `Input "${targetHandle}" of node "${target}" is already connected; delete that edge first (ui.deleteEdge).`,
        );
      }
      const ids = new Set(graph.edges.map((e) => e.id));
      const wanted = str(args.edge_id);
      if (wanted !== undefined && ids.has(wanted)) return fail(`An edge with id "${wanted}" already exists.`);
      const id = wanted ?? freshId(`e_${source}_${target}`, ids);
      const edge: GraphEdge = { id, source, sourceHandle, target, targetHandle };
      return { ok: true, graph: { ...graph, edges: [...graph.edges, edge] }, value: { edge_id: id } };
    }
    case "ui_update_node_data": {
      const id = str(args.node_id) ?? "";
      const current = node(graph, id);
      if (!current) return missingNode(id);
      const data = { ...current.data, ...((args.data as Args | undefined) ?? {}) };
      return replaceNode(graph, { ...current, data }, { node_id: id, data });
    }
    case "ui_move_node": {
      const id = str(args.node_id) ?? "";
      const current = node(graph, id);
      if (!current) return missingNode(id);
      const position = { x: Number(args.x), y: Number(args.y) };
      return replaceNode(graph, { ...current, position }, { node_id: id, position });
    }
    case "ui_set_node_title": {
      const id = str(args.node_id) ?? "";
      const current = node(graph, id);
      if (!current) return missingNode(id);
      return replaceNode(
        graph,
        { ...current, title: str(args.title) ?? "" },
        { node_id: id, title: str(args.title) ?? "" },
      );
    }
    case "ui_delete_node": {
      const id = str(args.node_id) ?? "";
      if (!node(graph, id)) return missingNode(id);
      const edges = graph.edges.filter((e) => e.source !== id && e.target !== id);
      const removedEdges = graph.edges.filter((e) => !edges.includes(e)).map((e) => e.id);
      return {
        ok: true,
        graph: { nodes: graph.nodes.filter((n) => n.id !== id), edges },
        value: { deleted: id, deleted_edges: removedEdges },
      };
    }
    case "ui_delete_edge": {
      const id = str(args.edge_id) ?? "";
      if (!graph.edges.some((e) => e.id === id))
        return fail(`There is no edge "${id}". Call ui.getGraph() to see the edge ids.`);
      return { ok: true, graph: { ...graph, edges: graph.edges.filter((e) => e.id !== id) }, value: { deleted: id } };
    }
    case "ui_copy": {
      const ids = new Set((args.node_ids as string[] | undefined) ?? []);
      const missing = [...ids].find((id) => !node(graph, id));
      if (missing !== undefined) return missingNode(missing);
      const fragment: Fragment = {
        nodes: graph.nodes.filter((n) => ids.has(n.id)),
        edges: graph.edges.filter((e) => ids.has(e.source) && ids.has(e.target)),
      };
      return { ok: true, graph, value: fragment };
    }
    case "ui_paste":
      return paste(
        graph,
        args.fragment as Fragment,
        (args.offset as { x: number; y: number } | undefined) ?? { x: 40, y: 40 },
      );
    default: {
      const never: never = op;
      return fail(`unknown document operation ${String(never)}`);
    }
  }
}

function replaceNode(graph: Graph, next: GraphNode, value: unknown): OpResult {
  return { ok: true, graph: { ...graph, nodes: graph.nodes.map((n) => (n.id === next.id ? next : n)) }, value };
}

function nextPosition(graph: Graph): { x: number; y: number } {
  const right = graph.nodes.reduce((max, n) => Math.max(max, n.position.x), -240);
  return { x: right + 240, y: 80 };
}

/** Pastes a fragment with fresh ids (edges remapped), shifted by `offset`. */
function paste(graph: Graph, fragment: Fragment, offset: { x: number; y: number }): OpResult {
  const nodeIds = new Set(graph.nodes.map((n) => n.id));
  const edgeIds = new Set(graph.edges.map((e) => e.id));
  const map = new Map<string, string>();
  const nodes = fragment.nodes.map((n) => {
    const id = freshId(n.id, nodeIds);
    nodeIds.add(id);
    map.set(n.id, id);
    return { ...n, id, data: { ...n.data }, position: { x: n.position.x + offset.x, y: n.position.y + offset.y } };
  });
  const edges: GraphEdge[] = [];
  for (const e of fragment.edges) {
    const source = map.get(e.source);
    const target = map.get(e.target);
    if (!source || !target) continue;
    const id = freshId(e.id, edgeIds);
    edgeIds.add(id);
    edges.push({ ...e, id, source, target });
  }
  return {
    ok: true,
    graph: { nodes: [...graph.nodes, ...nodes], edges: [...graph.edges, ...edges] },
    value: { node_ids: nodes.map((n) => n.id), edge_ids: edges.map((e) => e.id) },
  };
}
