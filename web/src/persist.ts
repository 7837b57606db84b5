/**
 * What a page keeps across reloads, in IndexedDB (idb-keyval): the session id, the action draft, the
 * agent message being written, the agent model chosen, and the action history (capped: the oldest entries drop; each keeps its code and, when small enough,
 * its last result). Where IndexedDB is refused (a widget framed by another site, with third-party
 * storage blocked) the same keys live in memory for the page's life instead: nothing depends on it.
 * Text written just as the page goes is kept (left-behind.ts).
 */
import { createStore, del, get, set, type UseStore } from "idb-keyval";
import type { Observation } from "../../shared/protocol/worker.ts";
import { LeftBehind } from "./left-behind.ts";

export interface HistoryEntry {
  id: string;
  code: string;
  at: number;
  ok: boolean;
  summary: string;
  /** The action's last observation, when it was small enough to keep. */
  observation?: Observation | undefined;
  /** Its result as host values (assets, bytes) in the boundary encoding, kept with the observation. */
  value?: unknown;
}

export const HISTORY_MAX = 50;
/** Largest observation kept with a history entry (JSON characters); larger ones keep only the code. */
export const HISTORY_OBSERVATION_CHARS = 64 * 1024;

export interface Persistence {
  loadSessionId(): Promise<string | undefined>;
  saveSessionId(id: string): Promise<void>;
  loadHistory(): Promise<HistoryEntry[]>;
  addHistory(entry: HistoryEntry): Promise<HistoryEntry[]>;
  clearHistory(): Promise<void>;
  loadDraft(): Promise<string | undefined>;
  saveDraft(code: string): Promise<void>;
  /** The agent's `Message` box, as the person left it (a reload or a failed send loses nothing). */
  loadMessage(): Promise<string | undefined>;
  saveMessage(text: string): Promise<void>;
  /** The agent model the person chose in `Model` (the server's default when none, or one it no longer offers). */
  loadModel(): Promise<string | undefined>;
  saveModel(id: string): Promise<void>;
}

interface KeyValue {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  del(key: string): Promise<void>;
}

/** IndexedDB (one database per `name`, or idb-keyval's default), or memory once IndexedDB has refused. */
function keyValue(name: string | undefined): KeyValue {
  let store: UseStore | undefined;
  let memory: Map<string, unknown> | undefined;
  const idb = () => {
    store ??= name === undefined ? undefined : createStore(name, "keyval");
    return store;
  };
  const attempt = async <T>(onIdb: () => Promise<T>, onMemory: (map: Map<string, unknown>) => T): Promise<T> => {
    if (!memory) {
      try {
        return await onIdb();
      } catch {
        memory = new Map();
      }
    }
    return onMemory(memory);
  };
  // Text a person types (the action draft, the message) and removals: kept if the page goes mid-write.
  const left = new LeftBehind<string>(`nt-left:${name ?? "app"}:`);
  const write = (key: string, value: unknown): Promise<void> =>
    value === null || value === undefined
      ? left.track(key, null, del(key, idb()))
      : typeof value === "string"
        ? left.track(key, value, set(key, value, idb()))
        : set(key, value, idb());
  return {
    get: <T>(key: string) =>
      attempt(
        async () => {
          const behind = left.take(key);
          // Only text (or a removal) is left behind: anything else there is not ours, and is dropped.
          if (!behind || (behind.value !== null && typeof behind.value !== "string")) return await get<T>(key, idb());
          await write(key, behind.value);
          return (behind.value ?? undefined) as T | undefined;
        },
        (map) => map.get(key) as T | undefined,
      ),
    set: (key, value) =>
      attempt(
        () => write(key, value),
        (map) => void map.set(key, value),
      ),
    del: (key) =>
      attempt(
        () => write(key, null),
        (map) => void map.delete(key),
      ),
  };
}

/** The page's persistence; `name` separates one page's keys from another's (a widget: its own database). */
export function createPersistence(name?: string): Persistence {
  const kv = keyValue(name);
  const loadHistory = async () => (await kv.get<HistoryEntry[]>("history")) ?? [];
  return {
    loadSessionId: async () => (await kv.get<string>("session-id")) ?? undefined,
    saveSessionId: (id) => kv.set("session-id", id),
    loadHistory,
    async addHistory(entry) {
      const kept =
        entry.observation && JSON.stringify(entry.observation).length > HISTORY_OBSERVATION_CHARS
          ? { ...entry, observation: undefined, value: undefined }
          : entry;
      const next = [kept, ...(await loadHistory())].slice(0, HISTORY_MAX);
      await kv.set("history", next);
      return next;
    },
    clearHistory: () => kv.del("history"),
    loadDraft: async () => (await kv.get<string>("action-draft")) ?? undefined,
    saveDraft: (code) => kv.set("action-draft", code),
    loadMessage: async () => (await kv.get<string>("message-draft")) ?? undefined,
    saveMessage: (text) => (text === "" ? kv.del("message-draft") : kv.set("message-draft", text)),
    loadModel: async () => (await kv.get<string>("agent-model")) ?? undefined,
    saveModel: (id) => kv.set("agent-model", id),
  };
}

/** The signed-in app's own (idb-keyval's default database, as before widgets existed). */
export const appPersistence: Persistence = createPersistence();
