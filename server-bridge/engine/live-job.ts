/**
 * A job running in this process, and the writes that put its state in its row. Node records are
 * serialised once per change (dirty set), so a flush of a large job costs only what changed since
 * the last one plus one join.
 */

import type { Actor } from "../../shared/capabilities/types.ts";
import { escapeKey, fromJsonText, toJsonText } from "../../shared/protocol/values.ts";
import type { ServerRun } from "../capabilities/define.ts";
import type { Store } from "../store/db.ts";
import { type JobRow, type JobStatus, type StoredNode, storedNodeJson } from "./job-store.ts";
import type { Plan } from "./plan.ts";
import type { NodeRecord, RunFailure } from "./scheduler.ts";

export interface LiveJob {
  readonly id: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly runId: string;
  readonly run: ServerRun;
  readonly controller: AbortController;
  /** Whose act the job's effects are: the agent's (through the gate) or the person's (never prompted). */
  readonly actor: Actor;
  readonly plan: Plan;
  readonly inputs: Record<string, unknown>;
  status: JobStatus;
  /** The scheduler's records, once the job has begun. */
  records: NodeRecord[] | null;
  done: number;
  startedAt?: number;
  readonly dirty: Set<number>;
  readonly nodeJson: string[];
  timer?: ReturnType<typeof setInterval>;
  settled: boolean;
  /** The job's row writes, in order (begin, progress, settle): each waits for the one before. */
  writes: Promise<void>;
  /** When its progress was last signalled, and the trailing signal waiting out the gap, if any. */
  signalledAt?: number;
  signalTimer?: ReturnType<typeof setTimeout> | undefined;
}

/** Another server's pages follow a job by its row: at most one progress signal per job this often. */
export const PROGRESS_SIGNAL_MS = 100;

/** Signals that the job's row changed: at once, or once the gap since the last has passed (never dropped). */
export function signalProgress(store: Store, job: LiveJob): void {
  if (job.signalTimer) return;
  const wait = (job.signalledAt ?? 0) + PROGRESS_SIGNAL_MS - Date.now();
  const send = () => {
    job.signalTimer = undefined;
    job.signalledAt = Date.now();
    void store.signals.notify("job", job.id);
  };
  if (wait <= 0) send();
  else {
    job.signalTimer = setTimeout(send, wait);
    job.signalTimer.unref?.();
  }
}

function storedNode(type: string, record: NodeRecord | undefined, fallback: StoredNode["status"]): StoredNode {
  if (!record) return { type, status: fallback };
  const node: StoredNode = { type, status: record.status };
  if (record.started_at !== undefined) node.started_at = record.started_at;
  if (record.duration_ms !== undefined) node.duration_ms = record.duration_ms;
  if (record.outputs !== undefined) node.outputs = record.outputs;
  if (record.error !== undefined) node.error = record.error;
  return node;
}

/** The job's `nodes` column: an object keyed by node id, in graph order. */
export function nodesJson(job: LiveJob, fallback: StoredNode["status"] = "pending"): string {
  const { nodes } = job.plan;
  if (job.nodeJson.length === 0 || !job.records) {
    for (const n of nodes) {
      job.nodeJson[n.index] =
        `${JSON.stringify(escapeKey(n.node.id))}:${storedNodeJson(storedNode(n.type.id, job.records?.[n.index], fallback))}`;
    }
    job.dirty.clear();
  } else {
    for (const index of job.dirty) {
      const n = nodes[index];
      if (n)
        job.nodeJson[index] =
          `${JSON.stringify(escapeKey(n.node.id))}:${storedNodeJson(storedNode(n.type.id, job.records[index], fallback))}`;
    }
    job.dirty.clear();
  }
  return `{${job.nodeJson.join(",")}}`;
}

/** Writes a running job's nodes and progress; a write that changed something is signalled. */
export async function writeProgress(store: Store, job: LiveJob): Promise<void> {
  if (!store.open) return;
  const changed = job.dirty.size > 0;
  await store
    .sql("UPDATE jobs SET nodes = ?, done = ? WHERE id = ? AND status = 'running'")
    .run(nodesJson(job), job.done, job.id);
  if (changed) signalProgress(store, job);
}

/**
 * Writes a job's final state. With a live job the nodes come from its records; without one (a row
 * whose owner is gone) its stored nodes are closed: running ones cancelled, pending ones skipped.
 */
export async function settleRow(
  store: Store,
  row: Pick<JobRow, "id" | "nodes" | "done">,
  status: JobStatus,
  error: RunFailure | null,
  outputs: Record<string, unknown> | null = null,
  job?: LiveJob,
): Promise<void> {
  let nodes: string;
  let done = row.done;
  if (job) {
    for (const n of job.plan.nodes) job.dirty.add(n.index);
    nodes = nodesJson(job, "skipped");
    done = job.done;
  } else {
    const stored = fromJsonText(row.nodes, "nodes") as Record<string, StoredNode>;
    for (const node of Object.values(stored)) {
      if (node.status === "running") node.status = "cancelled";
      else if (node.status === "pending") node.status = "skipped";
    }
    nodes = toJsonText(stored);
  }
  await store
    .sql(
      `UPDATE jobs SET status = ?, error = ?, outputs = ?, nodes = ?, done = ?, ended_at = ?, lease_owner = NULL, lease_expires = NULL
       WHERE id = ? AND status IN ('queued', 'running')`,
    )
    .run(
      status,
      error ? JSON.stringify(error) : null,
      outputs ? toJsonText(outputs) : null,
      nodes,
      done,
      Date.now(),
      row.id,
    );
}
