/**
 * Beside `Run workflow`: how the canvas's run is going, or how it ended, in one line a person reads
 * without opening the Jobs tab (as workflow editors show a run's progress and end). Running: a progress
 * bar and "2 of 4 nodes done"; completed: its time and outputs, compactly (the whole value on hover and
 * in the Jobs tab); failed: at which node and why, with `Show node` and `Ask the agent`; cancelled: after
 * how long. A polite live region, so a screen reader hears the end of a run.
 */

import type { Graph } from "../../../shared/graph/document.ts";
import { nodeLabel } from "../../../shared/graph/node-types.ts";
import { formatMs } from "../../../shared/protocol/durations.ts";
import { aboutFailure } from "../agent-asks.ts";
import { useAssetNames } from "../asset-names.ts";
import type { JobEntry } from "../jobs/jobs-store.ts";
import { previewText, valuesLine } from "../panel/ValueView.tsx";

export interface RunOutcomeProps {
  job: JobEntry | undefined;
  graph: Graph;
  /** Brings a node into view and selects it; answers why not, when it cannot. */
  onShowNode(nodeId: string): void;
  /** Begins a question about the failure for the agent (absent where there is no agent to ask). */
  onAsk?: ((text: string) => void) | undefined;
}

/** The node's name as the canvas shows it, or its id once it is gone from the canvas. */
function nodeName(graph: Graph, nodeId: string): string {
  const node = graph.nodes.find((n) => n.id === nodeId);
  return node ? nodeLabel(node) : nodeId;
}

/** "2 of 4 nodes done" from the node runs this page heard of (all of them, for a run it started). */
function nodesDone(job: JobEntry): string {
  const runs = Object.values(job.nodes);
  if (runs.length === 0) return `${Math.round(job.progress.percent)}%`;
  const done = runs.filter((r) => r.status === "completed" || r.status === "skipped").length;
  return `${done} of ${runs.length} ${runs.length === 1 ? "node" : "nodes"} done`;
}

function Outcome({ job, graph, onShowNode, onAsk }: RunOutcomeProps & { job: JobEntry }) {
  const nameOf = useAssetNames(job.status === "completed" ? job.outputs : undefined);
  const took = job.duration_ms === null ? "" : ` in ${formatMs(job.duration_ms)}`;
  switch (job.status) {
    case "queued":
      return <>Queued…</>;
    case "running":
      return (
        <>
          <progress max={100} value={job.progress.percent} aria-label="Run progress" /> Running: {nodesDone(job)}
        </>
      );
    case "completed": {
      const line = job.outputs === undefined || job.outputs === null ? "" : valuesLine(job.outputs, undefined, nameOf);
      return (
        <>
          <span className="run-ended job-completed">
            Completed{took}
            {line ? ":" : ""}
          </span>
          {line ? (
            <span className="run-outputs" title={previewText(job.outputs, 2000, nameOf)}>
              {line}
            </span>
          ) : null}
        </>
      );
    }
    case "failed": {
      const nodeId = job.error?.node_id;
      const why = (nodeId !== undefined ? job.nodes[nodeId]?.error : undefined) ?? job.error?.message ?? "";
      return (
        <>
          <span className="run-ended job-failed">
            Failed{nodeId !== undefined ? ` at ${nodeName(graph, nodeId)}` : ""}
            {why ? ":" : ""}
          </span>
          {why ? (
            <span className="run-why" title={why}>
              {why}
            </span>
          ) : null}
          {nodeId !== undefined && graph.nodes.some((n) => n.id === nodeId) ? (
            <button type="button" onClick={() => onShowNode(nodeId)}>
              Show node
            </button>
          ) : null}
          {onAsk ? (
            <button type="button" onClick={() => onAsk(aboutFailure(job.workflow_name ?? "this workflow", job.error))}>
              Ask the agent
            </button>
          ) : null}
        </>
      );
    }
    default:
      return (
        <span className="run-ended job-cancelled">
          Cancelled{job.duration_ms === null ? "" : ` after ${formatMs(job.duration_ms)}`}
        </span>
      );
  }
}

export function RunOutcome(props: RunOutcomeProps) {
  return (
    <span className="run-outcome" role="status" aria-label="Last run">
      {props.job ? <Outcome {...props} job={props.job} /> : null}
    </span>
  );
}
