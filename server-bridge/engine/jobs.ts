/**
 * The job engine: a workflow run as a leased job row. `start` validates and plans the graph, opens a
 * job-scoped run that inherits the starting run's gate (so every effect asks, or not, exactly as the
 * session would), queues the job, and runs it with the scheduler. A job the person started with the
 * editor's own `Run workflow` is theirs: its effects are user-actor calls (audited as the user's, never
 * prompted), like every other act of the person's own controls. Progress goes to the session's event
 * stream; the row is written on start, every `flushMs` while running, and when it settles, and each
 * write is signalled, so another server's pages follow the job from its row (job-relay.ts).
 *
 * In-process state is a cache of live jobs only: the row is the record. Cancelling a job owned by
 * another process sharing the store sets `cancel_requested`, which its owner sees on the job's signal
 * (or its next flush).
 */
import type { Actor } from "../../shared/capabilities/types.ts";
import { newId } from "../../shared/gate/approvals.ts";
import type { Gate } from "../../shared/gate/gate.ts";
import type { Graph } from "../../shared/graph/document.ts";
import { CodedError } from "../../shared/protocol/errors.ts";
import type { SessionEvent } from "../../shared/protocol/server.ts";
import { fromJsonText, toJsonText } from "../../shared/protocol/values.ts";
import type { ServerRun } from "../capabilities/define.ts";
import { notFound } from "../capabilities/errors.ts";
import type { Relay } from "../runs/relay.ts";
import type { Store } from "../store/db.ts";
import type { CodeSandbox } from "./code-sandbox.ts";
import { relayJob } from "./job-relay.ts";
import {
  insertJob,
  isTerminal,
  type JobRow,
  type JobView,
  jobStatus,
  jobView,
  listJobs,
  percent,
  readJob,
} from "./job-store.ts";
import { type LiveJob, nodesJson, settleRow, signalProgress, writeProgress } from "./live-job.ts";
import { issueOf, planGraph } from "./plan.ts";
import { executePlan, type RunFailure } from "./scheduler.ts";
import { Waiters } from "./waiters.ts";

/** How the engine opens and ends job-scoped runs (the server's Runs). */
export interface JobRunHost {
  start(
    userId: string,
    sessionId: string,
    options: { gate: Gate },
  ): Promise<{ id: string; run: ServerRun; controller: AbortController }>;
  end(userId: string, runId: string, reason: "ended" | "cancelled" | "expired"): Promise<unknown>;
}

export interface JobEngineOptions {
  owner: string;
  leaseMs: number;
  /** Nodes of one job running at once. */
  concurrency?: number;
  /** Jobs running at once in this process; later ones wait as `queued`. */
  maxRunningJobs?: number;
  nodeTimeoutMs?: number;
  flushMs?: number;
  /** Runs code nodes, on the process's sandbox pool (each job's code counts against its user). */
  code: CodeSandbox;
}

const NOT_FOUND_HINT = "Call jobs.list() to see your jobs.";
/** Largest JSON of a job's outputs kept in its row; a job producing more fails with result_too_large. */
const MAX_OUTPUT_CHARS = 4 * 1024 * 1024;

/** The run's job engine, or `capability_unavailable` on a host built without one. */
export function engineOf(run: ServerRun): JobEngine {
  const jobs = run.services.jobs;
  if (!jobs) {
    throw new CodedError({
      code: "capability_unavailable",
      message: "This host has no workflow engine, so workflows cannot run here. Run them through the server.",
    });
  }
  return jobs;
}

export class JobEngine {
  readonly #live = new Map<string, LiveJob>();
  readonly #queue: LiveJob[] = [];
  readonly #waiters = new Waiters();
  /** Row writes still in flight (a settling job's): shutdown waits for them before the store closes. */
  readonly #writing = new Set<Promise<void>>();
  #running = 0;
  readonly #options: Required<Omit<JobEngineOptions, "code">>;
  /** Where code nodes run: the process's sandbox pool, per user (code-sandbox.ts). */
  readonly code: CodeSandbox;

  constructor(
    private readonly store: Store,
    private readonly relay: Relay,
    private readonly runs: () => JobRunHost,
    options: JobEngineOptions,
  ) {
    const { code, ...rest } = options;
    this.#options = { concurrency: 4, maxRunningJobs: 8, nodeTimeoutMs: 10 * 60_000, flushMs: 250, ...rest };
    this.code = code;
  }

  /** Shutdown: refuses further code nodes (jobs end with their runs; the pool's owner disposes it). Safe to call twice. */
  async dispose(): Promise<void> {
    this.code.close();
    await Promise.all([...this.#writing]);
  }

  /** Validates and queues a job; answers at once with its view (status `queued` or `running`). */
  async start(
    from: ServerRun,
    input: { graph: Graph; workflowId?: string | undefined; inputs: Record<string, unknown>; actor?: Actor },
  ): Promise<JobView> {
    // What runs is what the row records (a copy through the stored form: host values, assets as
    // `AssetRef`, bytes as `Uint8Array`, data that looks like a marker kept as data).
    const graph = fromJsonText(toJsonText(input.graph)) as Graph;
    const inputs = fromJsonText(toJsonText(input.inputs)) as Record<string, unknown>;
    const planned = planGraph(graph);
    if (!planned.ok) {
      const messages = planned.problems.map((p) => p.message);
      throw new CodedError({
        code: "capability_failed",
        message: `The workflow cannot run; fix its graph first (${messages.length} problem${messages.length === 1 ? "" : "s"}): ${messages.slice(0, 5).join(" ")}`,
        issues: planned.problems.map(issueOf),
      });
    }
    const { user_id: userId, session_id: sessionId, run_id: startedBy } = from.context;
    const jobRun = await this.runs().start(userId, sessionId, { gate: from.gate });
    const id = newId("job");
    const at = Date.now();
    const plan = planned.plan;
    const job: LiveJob = {
      id,
      userId,
      sessionId,
      runId: jobRun.id,
      run: jobRun.run,
      controller: new AbortController(),
      actor: input.actor ?? "agent",
      plan,
      inputs,
      status: "queued",
      records: null,
      done: 0,
      dirty: new Set(),
      nodeJson: [],
      settled: false,
      writes: Promise.resolve(),
    };
    await insertJob(this.store, {
      id,
      userId,
      sessionId,
      startedBy,
      runId: jobRun.id,
      workflowId: input.workflowId ?? null,
      graph,
      inputs,
      nodes: nodesJson(job),
      total: plan.nodes.length,
      owner: this.#options.owner,
      leaseExpires: at + this.#options.leaseMs,
    });
    this.#live.set(id, job);
    // The job-scoped run can end under the job (its maximum lifetime, a server shutdown): settle then.
    jobRun.controller.signal.addEventListener(
      "abort",
      () => {
        const reason = jobRun.controller.signal.reason;
        if (reason === "cancelled") void this.#abort(job, "cancelled", "The job's run was cancelled.");
        else
          void this.#abort(
            job,
            "failed",
            reason === "expired"
              ? "The job ran past the maximum run time and was stopped."
              : "The server stopped before the job finished; start it again.",
          );
      },
      { once: true },
    );
    this.#queue.push(job);
    this.relay.announce("job", id, sessionId, { type: "job_progress", job_id: id, status: "queued", percent: 0 });
    this.#pump();
    return this.view(userId, id, { nodes: false, nodeOutputs: false });
  }

  async view(userId: string, jobId: string, detail: { nodes: boolean; nodeOutputs: boolean }): Promise<JobView> {
    const live = this.#live.get(jobId);
    if (live && live.userId === userId) {
      if (live.status === "running") await this.#write(live, () => writeProgress(this.store, live));
      else await live.writes;
    }
    const row = await readJob(this.store, userId, jobId);
    if (!row) throw notFound("job", jobId, NOT_FOUND_HINT);
    return jobView(row, detail);
  }

  list(userId: string, opts: Parameters<typeof listJobs>[2]): Promise<JobView[]> {
    return listJobs(this.store, userId, opts);
  }

  /** Stops a job: at once when this process runs it, else by asking its owner through the row. */
  async cancel(userId: string, jobId: string): Promise<JobView> {
    const live = this.#live.get(jobId);
    if (live && live.userId === userId) {
      await this.#abort(live, "cancelled", "The job was cancelled; nodes that had not finished were stopped.");
      return this.view(userId, jobId, { nodes: true, nodeOutputs: false });
    }
    const row = await readJob(this.store, userId, jobId);
    if (!row) throw notFound("job", jobId, NOT_FOUND_HINT);
    if (!isTerminal(row.status)) {
      if (row.lease_expires === null || row.lease_expires < Date.now()) {
        await settleRow(this.store, row, "cancelled", {
          code: "cancelled",
          message: "The job was cancelled; the process running it had already stopped.",
        });
        await this.relay.signals.notify("job", jobId);
      } else {
        await this.store.sql("UPDATE jobs SET cancel_requested = 1 WHERE id = ?").run(jobId);
        await this.relay.signals.notify("job", jobId);
      }
    }
    return this.view(userId, jobId, { nodes: true, nodeOutputs: false });
  }

  /** The job once it has settled, or as it is when `waitMs` passes or `signal` aborts. */
  async wait(userId: string, jobId: string, waitMs: number, signal: AbortSignal): Promise<JobView> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const status = await jobStatus(this.store, userId, jobId);
      if (!status) throw notFound("job", jobId, NOT_FOUND_HINT);
      const left = deadline - Date.now();
      if (isTerminal(status) || left <= 0 || signal.aborted) {
        return this.view(userId, jobId, { nodes: true, nodeOutputs: false });
      }
      await this.#waiters.next(jobId, Math.min(left, this.#options.flushMs), signal);
    }
  }

  #pump(): void {
    while (this.#running < this.#options.maxRunningJobs && this.#queue.length > 0) {
      this.#begin(this.#queue.shift() as LiveJob);
    }
  }

  #begin(job: LiveJob): void {
    this.#running++;
    job.status = "running";
    const startedAt = Date.now();
    job.startedAt = startedAt;
    void this.#write(job, async () => {
      await this.store
        .sql("UPDATE jobs SET status = 'running', started_at = ? WHERE id = ? AND status = 'queued'")
        .run(startedAt, job.id);
      signalProgress(this.store, job);
    });
    const total = job.plan.nodes.length;
    const progress = (nodeId: string, nodeStatus: "running" | "completed" | "failed") =>
      this.relay.local(job.sessionId, {
        type: "job_progress",
        job_id: job.id,
        status: "running",
        node_id: nodeId,
        node_status: nodeStatus,
        percent: percent(job.done, total),
      });
    this.relay.local(job.sessionId, { type: "job_progress", job_id: job.id, status: "running", percent: 0 });
    const execution = executePlan(job.plan, {
      signal: job.controller.signal,
      concurrency: this.#options.concurrency,
      nodeTimeoutMs: this.#options.nodeTimeoutMs,
      invoke: (name, args) => job.run.invoke(name, args, { actor: job.actor }),
      code: this.code.forUser(job.userId),
      workflowInputs: job.inputs,
      onNodeStart: (node) => {
        job.dirty.add(node.index);
        progress(node.node.id, "running");
      },
      onNodeEnd: (node, record) => {
        job.dirty.add(node.index);
        if (record.status === "completed") job.done++;
        progress(node.node.id, record.status === "completed" ? "completed" : "failed");
      },
    });
    job.records = execution.records;
    job.timer = setInterval(() => this.#tick(job), this.#options.flushMs);
    job.timer.unref?.();
    void execution.result.then((result) => this.#settle(job, result.status, result.error, result.outputs));
  }

  /**
   * Queues one write of the job's row after the ones before it; a failed write (a closing store) is
   * left to recovery, which settles the row once its lease lapses.
   */
  #write(job: LiveJob, step: () => Promise<void>): Promise<void> {
    const written = job.writes.then(step).catch(() => {});
    job.writes = written;
    this.#writing.add(written);
    void written.finally(() => this.#writing.delete(written));
    return written;
  }

  /** While running: write progress, and stop if another process asked to cancel. */
  #tick(job: LiveJob): void {
    if (job.settled || !this.store.open) return;
    void this.#write(job, async () => {
      if (job.settled || !this.store.open || (await this.#cancelIfAsked(job))) return;
      if (job.dirty.size > 0 && !job.settled) await writeProgress(this.store, job);
    });
  }

  /**
   * The `job` signal: a job live here checks whether another server asked to cancel it; any other job
   * is shown on this process's pages as its row says.
   */
  async signalled(jobId: string): Promise<string | undefined> {
    const live = this.#live.get(jobId);
    if (!live) {
      // A `wait` here on a job another server runs reads its row again now.
      this.#waiters.wake(jobId);
      return relayJob(this.store, this.relay, jobId);
    }
    if (!live.settled && this.store.open) void this.#write(live, () => this.#cancelIfAsked(live).then(() => {}));
    return undefined;
  }

  /** Stops the job if another process asked to cancel it through its row; true when it did. */
  async #cancelIfAsked(job: LiveJob): Promise<boolean> {
    if (job.settled) return false;
    const row = (await this.store.sql("SELECT cancel_requested FROM jobs WHERE id = ?").get(job.id)) as
      | { cancel_requested: number }
      | undefined;
    if (!row?.cancel_requested) return false;
    void this.#abort(job, "cancelled", "The job was cancelled; nodes that had not finished were stopped.");
    return true;
  }

  #abort(job: LiveJob, status: "cancelled" | "failed", message: string): Promise<void> {
    if (job.settled) return job.writes;
    // The scheduler settles its records synchronously on abort; the job then settles with them.
    job.controller.abort(message);
    return this.#settle(job, status, { code: status === "cancelled" ? "cancelled" : "run_ended", message }, {});
  }

  #settle(
    job: LiveJob,
    status: JobRow["status"],
    error: RunFailure | undefined,
    outputs: Record<string, unknown>,
  ): Promise<void> {
    if (job.settled) return job.writes;
    job.settled = true;
    clearInterval(job.timer);
    // The final signal goes with the job's end (below); a trailing progress one is not needed.
    clearTimeout(job.signalTimer);
    if (job.status === "running") this.#running--;
    else this.#queue.splice(this.#queue.indexOf(job), 1);
    let finalStatus = status;
    let finalError = error;
    if (status === "completed" && toJsonText(outputs).length > MAX_OUTPUT_CHARS) {
      finalStatus = "failed";
      finalError = {
        code: "result_too_large",
        message: `The job's outputs are larger than ${MAX_OUTPUT_CHARS / 1024 / 1024} MiB; output less (for example a slice or a count).`,
      };
    }
    job.status = finalStatus;
    if (!job.controller.signal.aborted) job.controller.abort("settled");
    this.#pump();
    return this.#write(job, async () => {
      if (this.store.open) {
        const row = { id: job.id, nodes: "{}", done: job.done };
        await settleRow(
          this.store,
          row,
          finalStatus,
          finalError ?? null,
          finalStatus === "completed" ? outputs : null,
          job,
        );
      }
      // Forgotten once its row is final: a view until then waits for this write, not the store.
      this.#live.delete(job.id);
      const ended: Extract<SessionEvent, { type: "job_ended" }> = {
        type: "job_ended",
        job_id: job.id,
        status: finalStatus as "completed" | "failed" | "cancelled",
      };
      if (finalError) ended.error = finalError;
      this.relay.announce("job", job.id, job.sessionId, ended);
      try {
        await this.runs().end(job.userId, job.runId, finalStatus === "cancelled" ? "cancelled" : "ended");
      } catch {
        // The run is already gone (store closed on shutdown): nothing is left to end.
      }
      this.#waiters.wake(job.id);
    });
  }
}
