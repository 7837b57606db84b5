/**
 * `Find a node`: the nodes of the open workflow in a searchable list (SearchList), by title, type or
 * id; picking one selects it, brings it into view and focuses it, as the Jobs tab's `Show node` does.
 * Opened with Ctrl/Cmd+F on the canvas or the canvas menu's `Find a node`.
 */
import { useCallback } from "react";
import type { Graph, GraphNode } from "../../../shared/graph/document.ts";
import { findNodeType } from "../../../shared/graph/node-types.ts";
import { ahead, holdsWords } from "./find-words.ts";
import { type SearchItem, SearchList } from "./SearchList.tsx";

function item(node: GraphNode): SearchItem {
  const type = findNodeType(node.type);
  return { id: node.id, label: node.title || type?.title || node.type, detail: `${node.type} · ${node.id}` };
}

/**
 * The nodes whose title, type (its id or title) or id holds every word of `query`, case aside: a node
 * whose id or title is the query first, then in the graph's order.
 */
export function findNodes(graph: Graph, query: string): GraphNode[] {
  const holds = holdsWords(query);
  const found = graph.nodes.filter((node) =>
    holds(`${node.title ?? ""} ${findNodeType(node.type)?.title ?? ""} ${node.type} ${node.id}`),
  );
  const wanted = query.trim().toLowerCase();
  return ahead(found, (node) => node.id.toLowerCase() === wanted || node.title?.toLowerCase() === wanted);
}

export interface NodeFinderProps {
  at: { x: number; y: number };
  graph: Graph;
  onPick(nodeId: string): void;
  onClose(): void;
}

export function NodeFinder({ at, graph, onPick, onClose }: NodeFinderProps) {
  const search = useCallback((query: string) => findNodes(graph, query).map(item), [graph]);
  return (
    <SearchList
      name="Find a node"
      searchLabel="Search the workflow's nodes"
      listLabel="Nodes"
      placeholder="A node's name, type or id"
      at={at}
      search={search}
      total={graph.nodes.length}
      noun="nodes"
      empty="No node of this workflow matches."
      onPick={onPick}
      onClose={onClose}
    />
  );
}
