/**
 * What differs between two graphs of one workflow (a kept version and the canvas), as a person reads
 * it: nodes by id (added, removed, changed in type, title or an input's value, moved), connections by
 * what they join (an edge's id does not matter). `describeDiff` says it in a few lines.
 */

import { plural } from "../protocol/durations.ts";
import type { Graph, GraphEdge, GraphNode } from "./document.ts";
import { nodeLabel } from "./node-types.ts";

export interface NodeChange {
  node: GraphNode;
  /** What differs: `type`, `title`, or the names of inputs whose value differs. */
  fields: string[];
}

export interface GraphDiff {
  /** In `to`, not in `from`. */
  added: GraphNode[];
  /** In `from`, not in `to`. */
  removed: GraphNode[];
  changed: NodeChange[];
  /** Nodes in both whose only difference is where they are. */
  moved: number;
  edgesAdded: GraphEdge[];
  edgesRemoved: GraphEdge[];
}

const joins = (edge: GraphEdge) => JSON.stringify([edge.source, edge.sourceHandle, edge.target, edge.targetHandle]);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** How `to` differs from `from`. */
export function diffGraphs(from: Graph, to: Graph): GraphDiff {
  const before = new Map(from.nodes.map((node) => [node.id, node]));
  const after = new Map(to.nodes.map((node) => [node.id, node]));
  const changed: NodeChange[] = [];
  let moved = 0;
  for (const node of to.nodes) {
    const was = before.get(node.id);
    if (!was) continue;
    const fields: string[] = [];
    if (was.type !== node.type) fields.push("type");
    if ((was.title ?? "") !== (node.title ?? "")) fields.push("title");
    for (const key of new Set([...Object.keys(was.data), ...Object.keys(node.data)])) {
      if (!same(was.data[key], node.data[key])) fields.push(key);
    }
    if (fields.length > 0) changed.push({ node, fields });
    else if (was.position.x !== node.position.x || was.position.y !== node.position.y) moved++;
  }
  const edgesBefore = new Set(from.edges.map(joins));
  const edgesAfter = new Set(to.edges.map(joins));
  return {
    added: to.nodes.filter((node) => !before.has(node.id)),
    removed: from.nodes.filter((node) => !after.has(node.id)),
    changed,
    moved,
    edgesAdded: to.edges.filter((edge) => !edgesBefore.has(joins(edge))),
    edgesRemoved: from.edges.filter((edge) => !edgesAfter.has(joins(edge))),
  };
}

const LISTED = 6;

/** Names, the first few of them: "Text, Split and 3 more". */
function names(items: readonly string[]): string {
  const shown = items.slice(0, LISTED).join(", ");
  return items.length > LISTED ? `${shown} and ${items.length - LISTED} more` : shown;
}

/**
 * The differences in lines, each naming what it is about: `fromName` and `toName` say which graph is
 * which ("version 3", "the canvas"). No lines: the graphs are the same.
 */
export function describeDiff(diff: GraphDiff, fromName: string, toName: string): string[] {
  const lines: string[] = [];
  const byId = (nodes: readonly GraphNode[]) => names(nodes.map(nodeLabel));
  if (diff.removed.length > 0) lines.push(`Only in ${fromName}: ${byId(diff.removed)}.`);
  if (diff.added.length > 0) lines.push(`Only in ${toName}: ${byId(diff.added)}.`);
  if (diff.changed.length > 0) {
    const each = diff.changed.map(({ node, fields }) => `${nodeLabel(node)} (${fields.join(", ")})`);
    lines.push(`Changed: ${names(each)}.`);
  }
  const edges = [
    diff.edgesRemoved.length > 0 ? `${plural(diff.edgesRemoved.length, "connection")} only in ${fromName}` : "",
    diff.edgesAdded.length > 0 ? `${plural(diff.edgesAdded.length, "connection")} only in ${toName}` : "",
  ].filter(Boolean);
  if (edges.length > 0) lines.push(`${edges.join(", ")}.`.replace(/^./, (c) => c.toUpperCase()));
  if (diff.moved > 0) lines.push(`${plural(diff.moved, "node")} moved.`.replace(/^./, (c) => c.toUpperCase()));
  return lines;
}
