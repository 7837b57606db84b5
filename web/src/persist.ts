/**
 * What the page keeps across reloads, in IndexedDB (idb-keyval): the session id, the action draft and
 * the action history (capped: the oldest entries drop; each keeps its code and, when small enough,
 * its last result).
 */
import { del, get, set } from "idb-keyval";
import type { Observation } from "../../shared/protocol/worker.ts";

export interface HistoryEntry {
  id: string;
  code: string;
  at: number;
  ok: boolean;
  summary: string;
  /** The action's last observation, when it was small enough to keep. */
  observation?: Observation | undefined;
}

export const HISTORY_MAX = 50;
/** Largest observation kept with a history entry (JSON characters); larger ones keep only the code. */
export const HISTORY_OBSERVATION_CHARS = 64 * 1024;

export async function loadSessionId(): Promise<string | undefined> {
  return (await get<string>("session-id")) ?? undefined;
}

export async function saveSessionId(id: string): Promise<void> {
  await set("session-id", id);
}

export async function loadHistory(): Promise<HistoryEntry[]> {
  return (await get<HistoryEntry[]>("history")) ?? [];
}

export async function addHistory(entry: HistoryEntry): Promise<HistoryEntry[]> {
  const kept =
    entry.observation && JSON.stringify(entry.observation).length > HISTORY_OBSERVATION_CHARS
      ? { ...entry, observation: undefined }
      : entry;
  const next = [kept, ...(await loadHistory())].slice(0, HISTORY_MAX);
  await set("history", next);
  return next;
}

export async function clearHistory(): Promise<void> {
  await del("history");
}

export async function loadDraft(): Promise<string | undefined> {
  return (await get<string>("action-draft")) ?? undefined;
}

export async function saveDraft(code: string): Promise<void> {
  await set("action-draft", code);
}
