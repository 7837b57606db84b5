/**
 * The workflow picker's list, kept current: loaded from the server, then updated from the per-user
 * change feed (`workflow_changed` on the event stream: a create, rename or delete by an action, another
 * tab or MCP), newest first as the server lists them.
 */
import type { SessionEvent } from "../../../shared/protocol/server.ts";
import type { EditorController, WorkflowSummary } from "./controller.ts";

type Change = Extract<SessionEvent, { type: "workflow_changed" }>;

export class WorkflowList {
  #items: WorkflowSummary[] = [];
  readonly #listeners = new Set<() => void>();

  constructor(private readonly controller: EditorController) {}

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  getSnapshot = (): WorkflowSummary[] => this.#items;

  #set(items: WorkflowSummary[]): void {
    this.#items = items;
    for (const listener of this.#listeners) listener();
  }

  async refresh(): Promise<void> {
    this.#set(await this.controller.list());
  }

  apply(event: Change): void {
    const { workflow, change } = event;
    const others = this.#items.filter((w) => w.id !== workflow.id);
    if (change === "deleted") {
      this.#set(others);
      this.controller.deletedElsewhere(workflow.id);
      return;
    }
    const known = this.#items.find((w) => w.id === workflow.id);
    const next: WorkflowSummary = {
      id: workflow.id,
      name: workflow.name ?? known?.name ?? workflow.id,
      version: workflow.version ?? known?.version ?? 1,
      updated_at: workflow.updated_at ?? new Date().toISOString(),
    };
    this.#set([next, ...others]);
    // The open workflow was renamed elsewhere: the editor's title follows (its graph stays the draft).
    this.controller.store.renamed(workflow.id, next.name);
  }
}
