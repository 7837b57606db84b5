/**
 * A job another server runs, shown on this server's pages: on the job's signal its row is re-read and
 * what it says now becomes events on this process's bus (each node's step once, the job's percent,
 * its end), exactly the events its own server published, at the pace of its row writes (every flush).
 */
import type { SessionEvent } from "../../shared/protocol/server.ts";
import { fromJsonText } from "../../shared/protocol/values.ts";
import type { Relay } from "../runs/relay.ts";
import type { Store } from "../store/db.ts";
import { isTerminal, type JobStatus, percent, type StoredNode } from "./job-store.ts";
import type { RunFailure } from "./scheduler.ts";

type NodeStep = NonNullable<Extract<SessionEvent, { type: "job_progress" }>["node_status"]>;
const STEPS: readonly string[] = ["running", "completed", "failed"] satisfies NodeStep[];

interface RelayedRow {
  session_id: string;
  status: JobStatus;
  nodes: string;
  error: string | null;
  done: number;
  total: number;
}

export async function relayJob(store: Store, relay: Relay, jobId: string): Promise<string | undefined> {
  const row = (await store
    .sql("SELECT session_id, status, nodes, error, done, total FROM jobs WHERE id = ?")
    .get(jobId)) as RelayedRow | undefined;
  if (!row) return "no such job in this store";
  const at = percent(row.done, row.total);
  if (isTerminal(row.status)) {
    const ended: Extract<SessionEvent, { type: "job_ended" }> = {
      type: "job_ended",
      job_id: jobId,
      status: row.status as "completed" | "failed" | "cancelled",
    };
    if (row.error !== null) ended.error = JSON.parse(row.error) as RunFailure;
    relay.relay("job", jobId, row.session_id, ended);
    return undefined;
  }
  const status = row.status as "queued" | "running";
  const nodes = fromJsonText(row.nodes, "nodes") as Record<string, StoredNode>;
  for (const [nodeId, node] of Object.entries(nodes)) {
    if (!STEPS.includes(node.status)) continue;
    relay.relay("job", jobId, row.session_id, {
      type: "job_progress",
      job_id: jobId,
      status,
      node_id: nodeId,
      node_status: node.status as NodeStep,
      percent: at,
    });
  }
  relay.relay("job", jobId, row.session_id, { type: "job_progress", job_id: jobId, status, percent: at });
  return undefined;
}
