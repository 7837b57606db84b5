/**
 * The node palette: a searchable list of every node type (SearchList: type to filter, arrows to move,
 * Enter to add, Escape to close). Opened by double-clicking the canvas, Ctrl/Cmd+K or `Add node`;
 * opened by dropping a dragged connection on empty canvas, it lists only the types that fit the other
 * end.
 */
import { useCallback, useMemo } from "react";
import { searchNodeTypes } from "../../../shared/graph/catalog-search.ts";
import type { Graph } from "../../../shared/graph/document.ts";
import { NODE_TYPES, type NodeType } from "../../../shared/graph/node-types.ts";
import { freshId } from "../../../shared/graph/ops.ts";
import type { PaletteRequest } from "./Canvas.tsx";
import type { Edit } from "./controller.ts";
import { SearchList } from "./SearchList.tsx";

export interface PaletteChoice {
  type: NodeType;
  /** With a filter: the handle of the new node the dragged connection goes to. */
  handle?: string | undefined;
}

export interface PaletteProps {
  /** Where it opens, in pixels inside the canvas. */
  at: { x: number; y: number };
  /** Only these types (a connection's other end), each with its fitting handle. */
  only?: readonly { type: NodeType; handle: string }[] | undefined;
  onPick(choice: PaletteChoice): void;
  onClose(): void;
}

export function Palette({ at, only, onPick, onClose }: PaletteProps) {
  const pool = useMemo<PaletteChoice[]>(
    () => (only ? only.map((o) => ({ type: o.type, handle: o.handle })) : NODE_TYPES.map((type) => ({ type }))),
    [only],
  );
  const search = useCallback(
    (query: string) => {
      const ranked = query.trim()
        ? searchNodeTypes(query, NODE_TYPES.length).flatMap((hit) => pool.filter((c) => c.type.id === hit.id))
        : pool;
      return ranked.map((c) => ({ id: c.type.id, label: c.type.title, detail: c.type.id, title: c.type.description }));
    },
    [pool],
  );
  return (
    <SearchList
      name="Node palette"
      searchLabel="Search node types"
      listLabel="Node types"
      placeholder={only ? "Node types that fit this connection" : "Search all node types"}
      at={at}
      search={search}
      total={pool.length}
      noun="node types"
      empty={
        pool.some((c) => c.type.id === "code.run")
          ? "No node type matches. Run code (code.run) runs a JavaScript function of your own."
          : "No node type matches."
      }
      onPick={(id) => {
        const choice = pool.find((c) => c.type.id === id);
        if (choice) onPick(choice);
      }}
      onClose={onClose}
    />
  );
}

/**
 * What picking `choice` in a palette opened by `request` does: a new node of that type (where the
 * request points, else beside the others) and, from a dragged connection, its connection.
 */
export function paletteEdits(
  graph: Graph,
  request: PaletteRequest,
  choice: PaletteChoice,
): { node_id: string; edits: Edit[] } {
  const node_id = freshId(choice.type.id.replace(/\./g, "_"), new Set(graph.nodes.map((n) => n.id)));
  const position = request.flow && { x: Math.round(request.flow.x), y: Math.round(request.flow.y) };
  const edits: Edit[] = [
    { op: "ui_add_node", args: { node_type: choice.type.id, node_id, ...(position ? { position } : {}) } },
  ];
  const from = request.from;
  if (from && choice.handle) {
    const args =
      from.side === "source"
        ? { source: from.nodeId, source_handle: from.handle, target: node_id, target_handle: choice.handle }
        : { source: node_id, source_handle: choice.handle, target: from.nodeId, target_handle: from.handle };
    edits.push({ op: "ui_connect_nodes", args });
  }
  return { node_id, edits };
}
