/**
 * The open workflow's versions besides the one on the canvas: the earlier ones the server keeps
 * (`workflows.versions`; `open` puts one's graph on the canvas as a draft, `compare` says how it differs
 * from the canvas or from another kept version) and a newer one saved
 * elsewhere (an agent's `workflows.update`, another tab, MCP), which a clean canvas shows at once (one
 * undo step, so Undo brings back what was there as a draft) and beside a draft the editor is told of
 * (`newer`: its banner offers to save the draft over it or load it). This page's own saves go through
 * `write`: a change it hears of meanwhile may be its own, so it is weighed once the write has answered.
 */
import { describeDiff, diffGraphs } from "../../../shared/graph/diff.ts";
import type { Graph, Workflow } from "../../../shared/graph/document.ts";
import type { EditorStore } from "./store.ts";
import type { UserCalls } from "./user-calls.ts";

/** An earlier version of a workflow, as `workflows.versions` lists it. */
export interface WorkflowVersion {
  version: number;
  name: string;
  description: string;
  saved_at: string;
  nodes: number;
  edges: number;
}

export class OpenVersions {
  /** This page's writes of the open workflow in flight. */
  #writing = 0;
  /** The newest version announced while a write was in flight. */
  #heard = 0;

  constructor(
    private readonly store: EditorStore,
    private readonly calls: UserCalls,
  ) {}

  /** The open workflow's earlier versions the server keeps, newest first; or why they could not be read. */
  async list(): Promise<{ versions: WorkflowVersion[] } | { problem: string }> {
    const id = this.store.getSnapshot().workflow?.id;
    if (!id) return { problem: "Open a workflow first." };
    const result = await this.calls.invoke("workflows", "versions", [id]);
    return result.ok ? (result.value as { versions: WorkflowVersion[] }) : { problem: result.error.message };
  }

  /**
   * An earlier version's graph of the open workflow, read for the workflow still open when it comes
   * (else why not).
   */
  async #graphOf(version: number): Promise<{ graph: Graph } | { problem: string }> {
    const id = this.store.getSnapshot().workflow?.id;
    if (!id) return { problem: "Open a workflow first." };
    const result = await this.calls.invoke("workflows", "get", [id, { version }]);
    if (!result.ok) return { problem: result.error.message };
    if (this.store.getSnapshot().workflow?.id !== id) return { problem: "Another workflow was opened meanwhile." };
    return { graph: (result.value as Workflow).graph };
  }

  /**
   * Puts an earlier version's graph on the canvas, an unsaved draft of the open workflow (one undo step;
   * Save keeps it as the newest version). Answers why not, when it cannot.
   */
  async open(version: number): Promise<string | undefined> {
    const read = await this.#graphOf(version);
    if ("problem" in read) return read.problem;
    this.store.replace(read.graph);
    return undefined;
  }

  /**
   * How an earlier version differs from the graph on the canvas, or (`since`) what it changed since
   * another kept version, in a few lines (none: the same graph); or why it could not be read.
   */
  async compare(version: number, since?: number): Promise<{ changes: string[] } | { problem: string }> {
    const read = await this.#graphOf(version);
    if ("problem" in read) return read;
    if (since === undefined) {
      const canvas = this.store.getSnapshot().graph;
      return { changes: describeDiff(diffGraphs(read.graph, canvas), `version ${version}`, "the canvas") };
    }
    const before = await this.#graphOf(since);
    if ("problem" in before) return before;
    return { changes: describeDiff(diffGraphs(before.graph, read.graph), `version ${since}`, `version ${version}`) };
  }

  /** One of this page's own writes of the open workflow (a save, a rename). */
  async write<T>(write: () => Promise<T>): Promise<T> {
    this.#writing++;
    try {
      return await write();
    } finally {
      this.#writing--;
      if (this.#writing === 0) {
        const open = this.store.getSnapshot().workflow;
        if (open && this.#heard > open.version) void this.#catchUp(open.id);
        this.#heard = 0;
      }
    }
  }

  /** A save of workflow `id` was announced (the change feed): the editor follows when it is the open one. */
  changed(id: string, change: { name: string; description?: string | undefined; version?: number | undefined }): void {
    this.store.changedElsewhere(id, change.name, change.description);
    const open = this.store.getSnapshot().workflow;
    if (open?.id !== id || change.version === undefined || change.version <= open.version) return;
    if (this.#writing > 0) this.#heard = Math.max(this.#heard, change.version);
    else void this.#catchUp(id);
  }

  /** A save here was refused as stale: the newer version is marked (the banner says what to do). */
  async conflicted(id: string): Promise<void> {
    const latest = await this.calls.invoke("workflows", "get", [id]);
    if (latest.ok) this.store.newerElsewhere(id, (latest.value as Workflow).version);
  }

  /** A catch-up in flight, and whether another save was heard meanwhile (one more read then covers them all). */
  #catching: Promise<void> | undefined;
  #again = false;

  async #catchUp(id: string): Promise<void> {
    if (this.#catching) {
      this.#again = true;
      return;
    }
    this.#catching = this.#read(id);
    try {
      await this.#catching;
    } finally {
      this.#catching = undefined;
    }
    const open = this.store.getSnapshot().workflow;
    if (this.#again) {
      this.#again = false;
      if (open) await this.#catchUp(open.id);
    }
  }

  async #read(id: string): Promise<void> {
    const result = await this.calls.invoke("workflows", "get", [id]);
    if (!result.ok) return;
    const latest = result.value as Workflow;
    const now = this.store.getSnapshot();
    if (now.workflow?.id !== id || latest.version <= now.workflow.version) return;
    // A write of this page went out meanwhile: what was read may be its own; weighed once it answers.
    if (this.#writing > 0) {
      this.#heard = Math.max(this.#heard, latest.version);
      return;
    }
    if (now.dirty) this.store.newerElsewhere(id, latest.version);
    else this.store.savedElsewhere(latest);
  }
}
