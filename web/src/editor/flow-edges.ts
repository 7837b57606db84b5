/**
 * The canvas's React Flow edges for a graph's: an unchanged edge keeps its object, so React Flow skips
 * drawing it again (with hundreds of connections, a keystroke in the inspector redrew every one).
 */
import type { Edge } from "@xyflow/react";
import type { Graph } from "../../../shared/graph/document.ts";

/** React Flow's edges for the graph's, the chosen ones selected; an unchanged edge keeps its `previous` object. */
export function edgesOf(graphEdges: Graph["edges"], chosen: ReadonlySet<string>, previous: readonly Edge[]): Edge[] {
  const prior = new Map(previous.map((edge) => [edge.id, edge]));
  return graphEdges.map((e) => {
    const before = prior.get(e.id);
    const selected = chosen.has(e.id);
    if (
      before &&
      before.source === e.source &&
      before.sourceHandle === e.sourceHandle &&
      before.target === e.target &&
      before.targetHandle === e.targetHandle &&
      before.selected === selected
    )
      return before;
    return {
      id: e.id,
      ariaLabel: `Connection from ${e.source} ${e.sourceHandle} to ${e.target} ${e.targetHandle}`,
      source: e.source,
      sourceHandle: e.sourceHandle,
      target: e.target,
      targetHandle: e.targetHandle,
      selected,
    };
  });
}
