/**
 * The jobs the page shows: the user's jobs from the server (`jobs.list`, so they survive a reload),
 * kept live from the session's job events, newest first with the live ones on top. For each job seen
 * live it also keeps each node's run (queued, running, done, failed with its error, its outputs once
 * the job has ended), which the canvas draws on the nodes of the open workflow. The list reads the
 * newest jobs; `older()` adds the page of jobs before the oldest shown; `filter()` reads (and `shown()`
 * keeps) one workflow's jobs, or the failed ones.
 */
import { z } from "zod";
import { ListedJob, type SessionEvent } from "../../../shared/protocol/server.ts";
import { fromWire } from "../../../shared/protocol/values.ts";
import type { UserCalls } from "../editor/user-calls.ts";
import { ExternalStore } from "../external-store.ts";

export type NodeRunStatus = "queued" | "running" | "completed" | "failed" | "skipped" | "cancelled";

export interface NodeRun {
  status: NodeRunStatus;
  error?: string | undefined;
  outputs?: unknown;
}

export interface JobEntry extends ListedJob {
  /** Node runs, for jobs this page saw live (empty for jobs only listed). */
  nodes: Record<string, NodeRun>;
}

const LISTED = 30;
const JobList = z.array(ListedJob);

const isLive = (job: { status: string }) => job.status === "queued" || job.status === "running";

/** Which jobs the list shows: one workflow's, the failed ones, or both at once. */
export interface JobsFilter {
  workflow?: string | undefined;
  failed?: boolean | undefined;
}

const sameFilter = (a: JobsFilter, b: JobsFilter) => a.workflow === b.workflow && !!a.failed === !!b.failed;

/** One node of a job as `jobs.get` tells it (parsed: what the page shows of it). */
const JobNode = z.object({
  id: z.string(),
  type: z.string(),
  status: z.string(),
  duration_ms: z.number().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type JobNode = z.infer<typeof JobNode>;
const JobNodes = z.object({ nodes: z.array(JobNode) });

interface StoredNode {
  id: string;
  status: string;
  error?: { code: string; message: string };
  outputs?: unknown;
}

export class JobsStore extends ExternalStore<JobEntry[]> {
  #error: string | undefined;
  /** Jobs whose node runs this page follows (started here or heard about live). */
  readonly #followed = new Set<string>();
  /** Older pages were read: what the newest page no longer holds stays, so the list has no gap. */
  #paged = false;
  #hasOlder = false;
  /** Which jobs the list reads (none set: every job). */
  #filter: JobsFilter = {};
  /** A read of the list (for the workflow chosen) has answered. */
  #loaded = false;

  constructor(private readonly calls: UserCalls) {
    super([]);
  }

  get error(): string | undefined {
    return this.#error;
  }

  /** Whether the server may have jobs older than the oldest shown (the last page read was full). */
  get hasOlder(): boolean {
    return this.#hasOlder;
  }

  /** `soon`: a step of a job's progress, which may come in bursts (see publishSoon). */
  #set(jobs: JobEntry[], soon = false): void {
    const sorted = [...jobs].sort(
      (a, b) => Number(isLive(b)) - Number(isLive(a)) || b.created_at.localeCompare(a.created_at),
    );
    if (soon) this.publishSoon(sorted);
    else this.publish(sorted);
  }

  #update(jobId: string, change: (job: JobEntry) => JobEntry, soon = false): void {
    this.#set(
      this.getSnapshot().map((job) => (job.job_id === jobId ? change(job) : job)),
      soon,
    );
  }

  /** Whether the list has been read (for the workflow chosen): before, an empty list says nothing yet. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /** Whether the list shows only some jobs (a workflow's, the failed ones). */
  get filtered(): boolean {
    return this.#filter.workflow !== undefined || this.#filter.failed === true;
  }

  /** The jobs the list shows: those the filter keeps (the others followed stay, for the canvas). */
  shown(jobs: readonly JobEntry[]): JobEntry[] {
    const { workflow, failed } = this.#filter;
    return jobs.filter(
      (job) => (workflow === undefined || job.workflow_id === workflow) && (!failed || job.status === "failed"),
    );
  }

  /**
   * Lists only the jobs `filter` keeps (a workflow's, the failed ones; neither: every job): reads them
   * anew, from the newest; the jobs this page follows stay (the canvas draws them).
   */
  async filter(filter: JobsFilter): Promise<void> {
    if (sameFilter(filter, this.#filter)) return;
    this.#filter = filter;
    this.#loaded = false;
    this.#paged = false;
    this.#hasOlder = false;
    this.#set(this.getSnapshot().filter((job) => this.#followed.has(job.job_id)));
    await this.refresh();
  }

  /** The most recent job of a workflow this page followed, for the canvas. */
  canvasJob(workflowId: string | undefined): JobEntry | undefined {
    if (!workflowId) return undefined;
    return this.getSnapshot().find((job) => job.workflow_id === workflowId && this.#followed.has(job.job_id));
  }

  /**
   * A page of the user's jobs (given a job's id: the ones older than it), or undefined when it could
   * not be read (the store's error says why).
   */
  async #read(what: string, before?: string): Promise<ListedJob[] | undefined> {
    const filter = this.#filter;
    try {
      const answer = await this.calls.api.jobs.list.query({
        limit: LISTED,
        before,
        workflow_id: filter.workflow,
        status: filter.failed ? "failed" : undefined,
      });
      const listed = JobList.parse(fromWire(answer.jobs, "result"));
      // Another filter was chosen meanwhile: this page of the one before is not wanted.
      if (filter !== this.#filter) return undefined;
      this.#error = undefined;
      this.#loaded = true;
      return listed;
    } catch (err) {
      this.#error = `The ${what} could not be loaded: ${err instanceof Error ? err.message : "network error"}`;
      this.#loaded = true;
      this.#set(this.getSnapshot());
      return undefined;
    }
  }

  async refresh(): Promise<void> {
    const listed = await this.#read("jobs");
    if (!listed) return;
    const known = new Map(this.getSnapshot().map((job) => [job.job_id, job]));
    const merged = listed.map((job) => {
      const before = known.get(job.job_id);
      known.delete(job.job_id);
      // While the row is live, the events heard since are newer than what the list read.
      const live = isLive(job) && before !== undefined;
      return {
        ...job,
        status: live ? before.status : job.status,
        progress: live ? before.progress : job.progress,
        nodes: before?.nodes ?? {},
      };
    });
    if (!this.#paged) this.#hasOlder = listed.length === LISTED;
    const kept = [...known.values()].filter((job) => this.#paged || this.#followed.has(job.job_id));
    this.#set([...kept, ...merged]);
  }

  /** Adds the page of jobs older than the oldest shown. */
  async older(): Promise<void> {
    const oldest = this.getSnapshot().reduce<JobEntry | undefined>(
      (min, job) => (min === undefined || job.created_at < min.created_at ? job : min),
      undefined,
    );
    const page = await this.#read("older jobs", oldest?.job_id);
    if (!page) return;
    this.#paged = true;
    this.#hasOlder = page.length === LISTED;
    const known = new Set(this.getSnapshot().map((job) => job.job_id));
    const added = page.filter((job) => !known.has(job.job_id)).map((job) => ({ ...job, nodes: {} }));
    this.#set([...this.getSnapshot(), ...added]);
  }

  /** A job this page just started for `workflowId`, on `nodeIds` (all queued until they run). */
  started(job: { job_id: string; workflow_id: string | null; workflow_name?: string | null }, nodeIds: string[]): void {
    const nodes = Object.fromEntries(nodeIds.map((id) => [id, { status: "queued" } satisfies NodeRun]));
    this.#follow(job.job_id, job.workflow_id, job.workflow_name ?? null);
    this.#update(job.job_id, (j) => ({
      ...j,
      workflow_id: job.workflow_id,
      workflow_name: job.workflow_name ?? j.workflow_name ?? null,
      nodes: { ...nodes, ...j.nodes },
    }));
  }

  /** Follows a job, adding it (until the list reads its row) when it is not known yet. */
  #follow(jobId: string, workflowId: string | null = null, workflowName: string | null = null): void {
    this.#followed.add(jobId);
    if (this.getSnapshot().some((job) => job.job_id === jobId)) return;
    this.#set([
      {
        job_id: jobId,
        workflow_id: workflowId,
        workflow_name: workflowName,
        status: "queued",
        created_at: new Date().toISOString(),
        started_at: null,
        ended_at: null,
        duration_ms: null,
        progress: { done: 0, total: 0, percent: 0 },
        error: null,
        nodes: {},
      },
      ...this.getSnapshot(),
    ]);
    // Started elsewhere (an action): the list tells its workflow and name.
    if (workflowId === null) void this.refresh();
  }

  /** A session event: job progress and ends update the job and its nodes. */
  event(event: SessionEvent): void {
    if (event.type === "job_progress") {
      this.#follow(event.job_id);
      this.#update(
        event.job_id,
        (job) => {
          const nodes = { ...job.nodes };
          if (event.node_id && event.node_status) {
            nodes[event.node_id] = { status: event.node_status, error: nodes[event.node_id]?.error };
          }
          return { ...job, status: event.status, progress: { ...job.progress, percent: event.percent }, nodes };
        },
        true,
      );
    } else if (event.type === "job_ended") {
      this.#follow(event.job_id);
      // Nodes still waiting or running when the job ended did not finish: say so at once (the
      // job's row, read next, tells each node's final state and outputs).
      const unfinished: NodeRunStatus = event.status === "cancelled" ? "cancelled" : "skipped";
      this.#update(event.job_id, (job) => ({
        ...job,
        status: event.status,
        error: event.error ?? null,
        progress: event.status === "completed" ? { ...job.progress, percent: 100 } : job.progress,
        nodes: Object.fromEntries(
          Object.entries(job.nodes).map(([id, run]) => [
            id,
            run.status === "queued" || run.status === "running" ? { ...run, status: unfinished } : run,
          ]),
        ),
      }));
      void this.#details(event.job_id);
    }
  }

  /** Once a job has ended: each node's final status, error and outputs, and the job's row. */
  async #details(jobId: string): Promise<void> {
    const get = () => this.calls.invoke("jobs", "get", [{ job_id: jobId, include_node_outputs: true }]);
    let read = await get();
    if (!read.ok) read = await get();
    await this.refresh();
    if (read.ok) {
      const view = read.value as { nodes?: StoredNode[] };
      const nodes: Record<string, NodeRun> = {};
      for (const node of view.nodes ?? []) {
        nodes[node.id] = {
          status: node.status === "pending" ? "skipped" : (node.status as NodeRunStatus),
          error: node.error ? `${node.error.code}: ${node.error.message}` : undefined,
          outputs: node.outputs,
        };
      }
      this.#update(jobId, (job) => ({ ...job, nodes }));
    }
  }

  /** A job's nodes as the server has them (status, time, error), or why they could not be read. */
  async nodesOf(jobId: string): Promise<{ nodes: JobNode[] } | { problem: string }> {
    const read = await this.calls.invoke("jobs", "get", [{ job_id: jobId }]);
    if (!read.ok) return { problem: read.error.message };
    const parsed = JobNodes.safeParse(read.value);
    return parsed.success ? { nodes: parsed.data.nodes } : { problem: "The server sent a malformed answer." };
  }

  async cancel(jobId: string): Promise<string | undefined> {
    const result = await this.calls.invoke("jobs", "cancel", [{ job_id: jobId }]);
    return result.ok ? undefined : result.error.message;
  }
}
