/** The workflow store as a capability uses it: its writes are announced on the run's user's change feed. */
import { WorkflowStore } from "../store/workflows.ts";
import type { ServerRun } from "./define.ts";

export function workflowsOf(run: ServerRun): WorkflowStore {
  const { events } = run.services;
  const userId = run.context.user_id;
  return new WorkflowStore(run.services.store, (change) =>
    events?.publishUser(userId, { type: "workflow_changed", ...change }),
  );
}
