/**
 * What a child agent (`agents.run_subtask`) is doing while the conversation's action waits on it: the
 * session's `subtask_progress` events, kept for the one page and read by the running step's card. The
 * conversation forgets them when its next action starts.
 */
import { useSyncExternalStore } from "react";
import type { SessionEvent } from "../../../shared/protocol/server.ts";

export type SubtaskProgress = Extract<SessionEvent, { type: "subtask_progress" }>;

let latest: SubtaskProgress | undefined;
const listeners = new Set<() => void>();

function set(next: SubtaskProgress | undefined): void {
  latest = next;
  for (const listener of listeners) listener();
}

export const subtaskProgress = {
  event: (event: SubtaskProgress) => set(event),
  clear: () => set(undefined),
};

export function useSubtaskProgress(): SubtaskProgress | undefined {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => latest,
  );
}

/** The words shown for it: "Subtask step 2 of 5: <what the step does>", or how it ended. */
export function progressText(progress: SubtaskProgress): string {
  if (progress.status) return `Subtask ended (${progress.status.replace("_", " ")}) after ${progress.step} steps`;
  const what = progress.description ? `: ${progress.description}` : "";
  return `Subtask step ${progress.step} of ${progress.steps}${what}`;
}
