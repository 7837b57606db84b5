/**
 * Job rows: reading them as views for the `jobs` namespace, and the writes the engine makes. Views
 * are what a model reads: ISO times, progress, named outputs, the error naming the failing node.
 *
 * Values (inputs, graph, node and job outputs) are written in the boundary encoding (`toJsonText`),
 * never plain `JSON.stringify`: an asset is stored as `{$asset: id}`, bytes as `{$bytes: base64}` and
 * a data key starting with `$` escaped, so a reference that went in leaves as a reference and data
 * that only looks like one leaves as data.
 */

import type { Graph } from "../../shared/graph/document.ts";
import type { FailurePayload } from "../../shared/protocol/errors.ts";
import { fromJsonText, toJsonText } from "../../shared/protocol/values.ts";
import type { Store } from "../store/db.ts";
import type { NodeStatus, RunFailure } from "./scheduler.ts";

export const JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export function isTerminal(status: JobStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

export interface JobRow {
  id: string;
  user_id: string;
  session_id: string;
  started_by: string | null;
  run_id: string | null;
  workflow_id: string | null;
  status: JobStatus;
  inputs: string;
  outputs: string | null;
  nodes: string;
  error: string | null;
  done: number;
  total: number;
  cancel_requested: number;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  lease_owner: string | null;
  lease_expires: number | null;
}

/** One node as stored in `jobs.nodes` (an object keyed by node id, in graph order). */
export interface StoredNode {
  type: string;
  status: NodeStatus;
  started_at?: number;
  duration_ms?: number;
  outputs?: unknown;
  error?: FailurePayload;
}

export interface JobView {
  job_id: string;
  workflow_id: string | null;
  /** In lists: the workflow's name now (null for a graph run without one, or a deleted workflow). */
  workflow_name?: string | null;
  status: JobStatus;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  progress: { done: number; total: number; percent: number };
  inputs: unknown;
  outputs: Record<string, unknown> | null;
  error: RunFailure | null;
  cancel_requested?: true;
  nodes?: {
    id: string;
    type: string;
    status: NodeStatus;
    duration_ms?: number;
    outputs?: unknown;
    error?: FailurePayload;
  }[];
}

const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());

export function percent(done: number, total: number): number {
  return total === 0 ? 100 : Math.floor((done / total) * 100);
}

export function jobView(row: JobRow, detail: { nodes: boolean; nodeOutputs: boolean }): JobView {
  const view: JobView = {
    job_id: row.id,
    workflow_id: row.workflow_id,
    status: row.status,
    created_at: iso(row.created_at) as string,
    started_at: iso(row.started_at),
    ended_at: iso(row.ended_at),
    duration_ms: row.started_at !== null && row.ended_at !== null ? row.ended_at - row.started_at : null,
    progress: { done: row.done, total: row.total, percent: percent(row.done, row.total) },
    inputs: fromJsonText(row.inputs, "inputs"),
    outputs: row.outputs === null ? null : (fromJsonText(row.outputs, "outputs") as Record<string, unknown>),
    error: row.error === null ? null : (JSON.parse(row.error) as RunFailure),
  };
  if (row.cancel_requested && !isTerminal(row.status)) view.cancel_requested = true;
  if (detail.nodes) {
    const nodes = fromJsonText(row.nodes, "nodes") as Record<string, StoredNode>;
    view.nodes = Object.entries(nodes).map(([id, node]) => {
      const entry: NonNullable<JobView["nodes"]>[number] = { id, type: node.type, status: node.status };
      if (node.duration_ms !== undefined) entry.duration_ms = Math.round(node.duration_ms * 1000) / 1000;
      if (node.error) entry.error = node.error;
      if (detail.nodeOutputs && node.outputs !== undefined) entry.outputs = node.outputs;
      return entry;
    });
  }
  return view;
}

/** Every column but `graph`, which only a rerun would need and which is the row's largest. */
export const JOB_COLUMNS =
  "id, user_id, session_id, started_by, run_id, workflow_id, status, inputs, outputs, nodes, error, done, total, cancel_requested, created_at, started_at, ended_at, lease_owner, lease_expires";

export async function readJob(store: Store, userId: string, jobId: string): Promise<JobRow | undefined> {
  const row = (await store.sql(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`).get(jobId)) as JobRow | undefined;
  return row && row.user_id === userId ? row : undefined;
}

/** A job's status, when it is this user's. */
export async function jobStatus(store: Store, userId: string, jobId: string): Promise<JobStatus | undefined> {
  const row = (await store.sql("SELECT status, user_id FROM jobs WHERE id = ?").get(jobId)) as
    | { status: JobStatus; user_id: string }
    | undefined;
  return row && row.user_id === userId ? row.status : undefined;
}

/** Largest JSON of a job's outputs a list shows; bigger outputs are `{$truncated, chars}` (read the job). */
export const MAX_LISTED_OUTPUT_CHARS = 4 * 1024;

/**
 * The user's jobs, newest first, each with its workflow's current name. `outputs`: keep each job's
 * inputs and outputs (the page's jobs list), each cut to `{$truncated, chars}` past MAX_LISTED_OUTPUT_CHARS.
 * `before`: only jobs older than that job of the user's (the next page; none when it is not theirs).
 */
export async function listJobs(
  store: Store,
  userId: string,
  opts: {
    limit: number;
    status?: JobStatus | undefined;
    workflow_id?: string | undefined;
    outputs?: boolean | undefined;
    before?: string | undefined;
  },
): Promise<JobView[]> {
  const rows = (await store
    .sql(
      `SELECT ${JOB_COLUMNS}, (SELECT w.name FROM workflows w WHERE w.id = jobs.workflow_id AND w.user_id = jobs.user_id) AS workflow_name
       FROM jobs WHERE user_id = ? AND (CAST(? AS TEXT) IS NULL OR status = ?) AND (CAST(? AS TEXT) IS NULL OR workflow_id = ?)
       AND (CAST(? AS TEXT) IS NULL OR (created_at, rowid) < (SELECT b.created_at, b.rowid FROM jobs b WHERE b.id = ? AND b.user_id = jobs.user_id))
       ORDER BY created_at DESC, rowid DESC LIMIT ?`,
    )
    .all(
      userId,
      opts.status ?? null,
      opts.status ?? null,
      opts.workflow_id ?? null,
      opts.workflow_id ?? null,
      opts.before ?? null,
      opts.before ?? null,
      opts.limit,
    )) as (JobRow & { workflow_name: string | null })[];
  return rows.map((row) => {
    const { inputs, outputs, ...summary } = jobView(row, { nodes: false, nodeOutputs: false });
    const listed: JobView = { ...summary, workflow_name: row.workflow_name } as JobView;
    if (opts.outputs) {
      // The page's list: what each run was given and gave, each cut when large.
      const cut = <T>(json: string, value: T) =>
        json.length <= MAX_LISTED_OUTPUT_CHARS ? value : { $truncated: true, chars: json.length };
      listed.inputs = cut(row.inputs, inputs);
      if (row.outputs !== null) listed.outputs = cut(row.outputs, outputs);
    }
    return listed;
  });
}

/** Largest JSON kept per node output in the job record; a bigger one is replaced by a marker. */
export const MAX_NODE_OUTPUT_CHARS = 64 * 1024;

/** A node's stored JSON, with outputs too large to keep replaced by `{$truncated, chars}`. */
export function storedNodeJson(node: StoredNode): string {
  const text = toJsonText(node);
  if (text.length <= MAX_NODE_OUTPUT_CHARS || node.outputs === undefined) return text;
  const chars = toJsonText(node.outputs).length;
  return toJsonText({ ...node, outputs: { $truncated: true, chars } });
}

/** A new job row, `queued`, leased by `owner` until `leaseExpires`. */
export async function insertJob(
  store: Store,
  job: {
    id: string;
    userId: string;
    sessionId: string;
    startedBy: string;
    runId: string;
    workflowId: string | null;
    graph: Graph;
    inputs: Record<string, unknown>;
    nodes: string;
    total: number;
    owner: string;
    leaseExpires: number;
  },
): Promise<void> {
  await store
    .sql(
      `INSERT INTO jobs (id, user_id, session_id, started_by, run_id, workflow_id, status, graph, inputs, nodes, total, created_at, lease_owner, lease_expires)
       VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      job.id,
      job.userId,
      job.sessionId,
      job.startedBy,
      job.runId,
      job.workflowId,
      toJsonText(job.graph),
      toJsonText(job.inputs),
      job.nodes,
      job.total,
      Date.now(),
      job.owner,
      job.leaseExpires,
    );
}
