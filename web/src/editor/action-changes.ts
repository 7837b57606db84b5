/**
 * What an action just did to the graph on screen, shown for a moment: the nodes it added or changed
 * (data, title, position) in the graph's newest changes, gathered while its edits keep coming, then
 * none. A person's own edits are not marked (they know what they did).
 */
import { useEffect, useRef, useState } from "react";
import type { Graph, GraphNode } from "../../../shared/graph/document.ts";

/** How long the marks stay after an action's last edit. */
export const ACTION_MARK_MS = 2500;

export function useActionChanges(graph: Graph, byAction: boolean | undefined): ReadonlySet<string> {
  const previous = useRef(new Map<string, GraphNode>(graph.nodes.map((n) => [n.id, n])));
  const [changed, setChanged] = useState<ReadonlySet<string>>(() => new Set());
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    const before = previous.current;
    previous.current = new Map(graph.nodes.map((n) => [n.id, n]));
    if (!byAction) return;
    // The store keeps a node's object when an edit leaves it as it was: a new one is a changed node.
    const ids = graph.nodes.filter((n) => before.get(n.id) !== n).map((n) => n.id);
    if (ids.length === 0) return;
    setChanged((now) => new Set([...now, ...ids]));
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setChanged(new Set()), ACTION_MARK_MS);
  }, [graph, byAction]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return changed;
}
