/**
 * The canvas's React Flow nodes for a graph: one per graph node, with what it shows (its type, title,
 * values, wired inputs, its run in the canvas's job, whether an action just changed it). A node keeps
 * its object (and React Flow skips drawing it again) unless something it shows changed: with hundreds
 * of nodes, a keystroke in the inspector or a run's progress redraws one node, not all.
 */
import { type Graph, samePosition } from "../../../shared/graph/document.ts";
import { isNote, nodeLabel } from "../../../shared/graph/node-types.ts";
import type { JobEntry, NodeRun } from "../jobs/jobs-store.ts";
import type { WorkflowFlowNode } from "./WorkflowNode.tsx";

const LIVE = new Set(["queued", "running"]);
/** A node of a live job that has not started yet (one object: a node keeps its own while it waits). */
const QUEUED: NodeRun = { status: "queued" };
const NOT_WIRED: readonly string[] = [];

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

export function flowNodes(
  g: Graph,
  previous: readonly WorkflowFlowNode[],
  job: JobEntry | undefined,
  changed: ReadonlySet<string>,
): WorkflowFlowNode[] {
  const prior = new Map(previous.map((p) => [p.id, p]));
  const wiredTo = new Map<string, string[]>();
  for (const e of g.edges) {
    const list = wiredTo.get(e.target);
    if (list) list.push(e.targetHandle);
    else wiredTo.set(e.target, [e.targetHandle]);
  }
  return g.nodes.map((n) => {
    // A note never runs: it has no run to show.
    const run = isNote(n.type) ? undefined : (job?.nodes[n.id] ?? (job && LIVE.has(job.status) ? QUEUED : undefined));
    const before = prior.get(n.id);
    const wired = wiredTo.get(n.id) ?? NOT_WIRED;
    const marked = changed.has(n.id);
    if (
      before &&
      samePosition(before.position, n.position) &&
      before.data.type === n.type &&
      before.data.title === n.title &&
      before.data.values === n.data &&
      before.data.run === run &&
      before.data.changed === marked &&
      sameList(before.data.wired, wired)
    )
      return before;
    return {
      id: n.id,
      type: "workflow",
      position: n.position,
      selected: before?.selected ?? false,
      // What a screen reader names it by (React Flow's node is an unnamed group otherwise).
      ariaLabel: `${nodeLabel(n)} (${n.type}), ${n.id}`,
      // React Flow hides a node it has no size for until it measures it again: keep the size.
      ...(before?.measured ? { measured: before.measured } : {}),
      data: { type: n.type, title: n.title, values: n.data, wired, run, changed: marked },
    };
  });
}
