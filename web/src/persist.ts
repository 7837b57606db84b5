/** What the page keeps across reloads, in IndexedDB (idb-keyval): the session id and the action history. */
import { get, set } from "idb-keyval";

export interface HistoryEntry {
  id: string;
  code: string;
  at: number;
  ok: boolean;
  summary: string;
}

const HISTORY_MAX = 50;

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
  const next = [entry, ...(await loadHistory())].slice(0, HISTORY_MAX);
  await set("history", next);
  return next;
}

export async function loadDraft(): Promise<string | undefined> {
  return (await get<string>("action-draft")) ?? undefined;
}

export async function saveDraft(code: string): Promise<void> {
  await set("action-draft", code);
}
