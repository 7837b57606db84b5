/**
 * The names an approval shows for the ids in a call's arguments (the gate's `named`): the user's own
 * workflow, asset and job, by `workflow_id`, `asset_id` and `job_id`. "Delete workflow wf_5ae5…" tells
 * a person nothing; `Delete workflow "Sum" (wf_5ae5…)` does. Another user's id stays as it is, so an
 * approval never tells anyone what someone else's thing is called.
 */
import type { Store } from "../store/db.ts";

const SHOWN_NAME = 80;

/** A name as the message quotes it: escaped (a quote in it cannot end the quote), and cut short. */
function quoted(name: string): string {
  return JSON.stringify(name.length > SHOWN_NAME ? `${name.slice(0, SHOWN_NAME - 1)}…` : name);
}

async function nameOf(store: Store, query: string, id: string, userId: string): Promise<string | undefined> {
  const row = (await store.sql(query).get(id, userId)) as { name: string | null } | undefined;
  return row?.name ?? undefined;
}

export function namedArgs(store: Store, userId: string): (args: unknown) => Promise<ReadonlyMap<string, string>> {
  return async (args) => {
    const names = new Map<string, string>();
    if (!args || typeof args !== "object") return names;
    const { workflow_id: workflowId, asset_id: assetId, job_id: jobId } = args as Record<string, unknown>;
    if (typeof workflowId === "string") {
      const name = await nameOf(store, "SELECT name FROM workflows WHERE id = ? AND user_id = ?", workflowId, userId);
      if (name !== undefined) names.set(workflowId, `${quoted(name)} (${workflowId})`);
    }
    if (typeof assetId === "string") {
      const name = await nameOf(store, "SELECT name FROM assets WHERE id = ? AND user_id = ?", assetId, userId);
      if (name !== undefined) names.set(assetId, `${quoted(name)} (${assetId})`);
    }
    if (typeof jobId === "string") {
      const name = await nameOf(
        store,
        `SELECT w.name AS name FROM jobs j JOIN workflows w ON w.id = j.workflow_id AND w.user_id = j.user_id
         WHERE j.id = ? AND j.user_id = ?`,
        jobId,
        userId,
      );
      if (name !== undefined) names.set(jobId, `${jobId} (of ${quoted(name)})`);
    }
    return names;
  };
}
