/**
 * The workflow picker's list, kept current: loaded from the server, then updated from the per-user
 * change feed (`workflow_changed` on the event stream: a create, rename or delete by an action, another
 * tab or MCP), newest first as the server lists them.
 */
import type { SessionEvent } from "../../../shared/protocol/server.ts";
import { ExternalStore } from "../external-store.ts";
import type { EditorController, WorkflowSummary } from "./controller.ts";

type Change = Extract<SessionEvent, { type: "workflow_changed" }>;

export class WorkflowList extends ExternalStore<WorkflowSummary[]> {
  constructor(private readonly controller: EditorController) {
    super([]);
  }

  async refresh(): Promise<void> {
    this.publish(await this.controller.list());
  }

  apply(event: Change): void {
    const { workflow, change } = event;
    const others = this.getSnapshot().filter((w) => w.id !== workflow.id);
    if (change === "deleted") {
      this.publish(others);
      this.controller.deletedElsewhere(workflow.id);
      return;
    }
    const known = this.getSnapshot().find((w) => w.id === workflow.id);
    const next: WorkflowSummary = {
      id: workflow.id,
      name: workflow.name ?? known?.name ?? workflow.id,
      description: workflow.description ?? known?.description,
      version: workflow.version ?? known?.version ?? 1,
      updated_at: workflow.updated_at ?? new Date().toISOString(),
    };
    this.publish([next, ...others]);
    // The open workflow was saved elsewhere: the editor follows (versions.ts says how).
    this.controller.versions.changed(workflow.id, {
      name: next.name,
      description: next.description,
      version: workflow.version,
    });
  }
}
