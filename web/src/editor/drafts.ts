/**
 * The unsaved drafts of workflows, kept in IndexedDB so that a reload finds them. An IndexedDB write
 * is asynchronous, and one still under way when the page goes (a reload in the same moment as an
 * edit) is lost with the page. So when the page is hidden to go (`pagehide`), each draft whose write
 * has not settled is also written, synchronously, to localStorage; the next read takes whichever of
 * the two is newer and moves it back into IndexedDB. Where localStorage is refused (a widget framed by
 * another site), IndexedDB alone is what there is.
 */
import { del, get, set } from "idb-keyval";
import type { Graph } from "../../../shared/graph/document.ts";

export interface Draft {
  graph: Graph;
  /** The version it was made on. */
  version: number;
}

/** A draft's latest state and when it changed (`draft` null: none, it was saved or undone). */
interface Change {
  draft: Draft | null;
  at: number;
}

const idbKey = (id: string) => `draft:${id}`;
const leftKey = (id: string) => `nt-draft-left:${id}`;

/** localStorage, or undefined where the page may not use it. */
function local(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export class Drafts {
  /** Changes whose IndexedDB write has not settled yet, by workflow id. */
  readonly #unsettled = new Map<string, Change>();
  /** Workflows whose change this page left in localStorage as it was hidden (and then came back). */
  readonly #leftHere = new Set<string>();

  constructor(target: Pick<Window, "addEventListener"> = window) {
    target.addEventListener("pagehide", () => this.#leave());
  }

  keep(id: string, draft: Draft): void {
    this.#write(id, { draft, at: Date.now() });
  }

  /** The workflow has no draft any more (saved, undone back to the stored graph). */
  drop(id: string): void {
    this.#write(id, { draft: null, at: Date.now() });
  }

  /** Drops the draft and waits until it is gone (before opening the stored graph, or after a delete). */
  async discard(id: string): Promise<void> {
    this.drop(id);
    local()?.removeItem(leftKey(id));
    await del(idbKey(id));
  }

  /** The workflow's draft: the newer of IndexedDB's and one a page left in localStorage as it went. */
  async read(id: string): Promise<Draft | undefined> {
    const stored = await get<Draft & { at?: number }>(idbKey(id));
    const left = this.#left(id);
    if (!left || (stored?.at ?? 0) > left.at) return stored && { graph: stored.graph, version: stored.version };
    this.#write(id, left);
    return left.draft ?? undefined;
  }

  #write(id: string, change: Change): void {
    this.#unsettled.set(id, change);
    const written = change.draft ? set(idbKey(id), { ...change.draft, at: change.at }) : del(idbKey(id));
    void written.then(
      () => {
        if (this.#unsettled.get(id) !== change) return;
        this.#unsettled.delete(id);
        if (this.#leftHere.delete(id)) local()?.removeItem(leftKey(id));
      },
      () => undefined,
    );
  }

  /** The change a page left in localStorage as it went (taken out: IndexedDB holds it from here). */
  #left(id: string): Change | undefined {
    const storage = local();
    const text = storage?.getItem(leftKey(id));
    if (!text) return undefined;
    storage?.removeItem(leftKey(id));
    try {
      const change = JSON.parse(text) as Change;
      return typeof change.at === "number" ? change : undefined;
    } catch {
      return undefined;
    }
  }

  #leave(): void {
    const storage = local();
    for (const [id, change] of this.#unsettled) {
      try {
        storage?.setItem(leftKey(id), JSON.stringify(change));
        this.#leftHere.add(id);
      } catch {
        // Full (a very large graph): IndexedDB's write may still land.
      }
    }
  }
}
