/** Helpers for engine tests: graphs by hand, and capability calls through a real server's runs. */

import type { Mode } from "../../shared/capabilities/types.ts";
import type { GraphEdge, GraphNode } from "../../shared/graph/document.ts";
import type { TestServer } from "../support/server.ts";

export const JOBS = "@nodetool-ai/sandbox-nodetool/jobs";
export const NODES = "@nodetool-ai/sandbox-nodetool/nodes";

export type Answer =
  | { ok: true; value: never }
  | { ok: false; error: { code: string; message: string; issues?: string[] } }
  | { pending: true };

export const node = (id: string, type: string, data: Record<string, unknown> = {}): GraphNode => ({
  id,
  type,
  data,
  position: { x: 0, y: 0 },
});

let edgeCount = 0;
export const edge = (source: string, target: string, targetHandle: string, sourceHandle = "output"): GraphEdge => ({
  id: `e${++edgeCount}`,
  source,
  sourceHandle,
  target,
  targetHandle,
});

/** A session in `mode` and a run in it, called through the server's tRPC `run.invoke` (dispatcher + ladder). */
export async function openRun(server: TestServer, mode: Mode) {
  const { sessionId } = await server.script.session.create.mutate({ mode });
  const { runId } = await server.script.run.start.mutate({ sessionId });
  const call = (module: string, exp: string, args: unknown[], callId?: string) =>
    server.script.run.invoke.mutate({
      runId,
      module,
      export: exp,
      args,
      ...(callId ? { callId } : {}),
    }) as Promise<Answer>;
  return { sessionId, runId, call };
}

export function answerValue<T = Record<string, unknown>>(answer: Answer): T {
  if (!("ok" in answer) || !answer.ok) throw new Error(`expected a value, got ${JSON.stringify(answer)}`);
  return answer.value as T;
}

export function errorOf(answer: Answer): { code: string; message: string; issues?: string[] } {
  if (!("ok" in answer) || answer.ok) throw new Error(`expected a failure, got ${JSON.stringify(answer)}`);
  return answer.error;
}

export interface JobResult {
  job_id: string;
  status: string;
  outputs: Record<string, unknown> | null;
  error: { code: string; message: string; node_id?: string; node_type?: string } | null;
  progress: { done: number; total: number; percent: number };
  nodes?: {
    id: string;
    type: string;
    status: string;
    duration_ms?: number;
    outputs?: unknown;
    error?: { code: string; message: string };
  }[];
  hint?: string;
}

export const nodeStatus = (job: JobResult) => Object.fromEntries((job.nodes ?? []).map((n) => [n.id, n.status]));
