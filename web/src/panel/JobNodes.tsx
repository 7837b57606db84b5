/**
 * A job's nodes, below it in the Jobs tab on `Nodes`: each node's status, how long it ran and its
 * error, read from the server when first shown (`jobs.get`), so the slow or failing step of a run is
 * found without opening the workflow. A live job's are read again when it ends.
 */
import { useEffect, useId, useState } from "react";
import { nodeLabel } from "../../../shared/graph/node-types.ts";
import { formatMs } from "../../../shared/protocol/durations.ts";
import type { JobNode, JobsStore } from "../jobs/jobs-store.ts";

/** A node's status as the list says it (one never reached is "not run"). */
const STATUS: Record<string, string> = {
  pending: "not run",
  running: "running",
  completed: "done",
  failed: "failed",
  skipped: "skipped",
  cancelled: "cancelled",
};

export function JobNodes({ jobId, status, store }: { jobId: string; status: string; store: JobsStore }) {
  const [open, setOpen] = useState(false);
  const [read, setRead] = useState<{ nodes: JobNode[] } | { problem: string } | undefined>();
  const id = useId();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the status is read so that a live job's nodes are read again when it changes
  useEffect(() => {
    if (!open) return;
    let gone = false;
    void store.nodesOf(jobId).then((answer) => {
      if (!gone) setRead(answer);
    });
    return () => {
      gone = true;
    };
  }, [open, jobId, status, store]);
  return (
    <div className="job-nodes">
      <button type="button" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        Nodes
      </button>
      {open ? (
        <div id={id}>
          {read === undefined ? <p className="status">Reading the nodes…</p> : null}
          {read && "problem" in read ? <p className="error">The nodes could not be read: {read.problem}</p> : null}
          {read && "nodes" in read ? (
            <table>
              <thead>
                <tr>
                  <th scope="col">Node</th>
                  <th scope="col">Status</th>
                  <th scope="col">Time</th>
                </tr>
              </thead>
              <tbody>
                {read.nodes.map((node) => (
                  <tr key={node.id} className={`job-node-${node.status}`}>
                    <td>
                      {nodeLabel(node)} <code>{node.id}</code>
                      {node.error ? <div className="error">{node.error.message}</div> : null}
                    </td>
                    <td>{STATUS[node.status] ?? node.status}</td>
                    <td>{node.duration_ms === undefined ? "" : formatMs(node.duration_ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
