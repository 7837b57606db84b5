/**
 * The unsaved drafts of workflows, kept in IndexedDB so that a reload finds them. A draft whose write
 * has not finished when the page goes is left behind in localStorage (left-behind.ts); reading takes the
 * newer of the two (another tab may have written the same workflow's draft since) and keeps it.
 */
import { del, get, set } from "idb-keyval";
import { z } from "zod";
import { Graph } from "../../../shared/graph/document.ts";
import { LeftBehind } from "../left-behind.ts";

export interface Draft {
  graph: Graph;
  /** The version it was made on. */
  version: number;
}

/** A draft's latest state and when it changed (`draft` null: none, it was saved or undone). */
const Change = z.object({
  draft: z.object({ graph: Graph, version: z.number().int().min(0) }).nullable(),
  at: z.number(),
});
type Change = z.infer<typeof Change>;

const idbKey = (id: string) => `draft:${id}`;

export class Drafts {
  readonly #left = new LeftBehind<unknown>("nt-left:drafts:");

  keep(id: string, draft: Draft): void {
    void this.#write(id, { draft, at: Date.now() });
  }

  /** The workflow has no draft any more (saved, undone back to the stored graph). */
  drop(id: string): void {
    void this.#write(id, { draft: null, at: Date.now() });
  }

  /** Drops the draft and waits until it is gone (before opening the stored graph, or after a delete). */
  async discard(id: string): Promise<void> {
    this.#left.take(id);
    await this.#write(id, { draft: null, at: Date.now() });
  }

  /** The workflow's draft: the newer of IndexedDB's and one a page left behind as it went. */
  async read(id: string): Promise<Draft | undefined> {
    const stored = await get<Draft & { at?: number }>(idbKey(id));
    // What a page left is read as any stored text is: parsed (one that does not parse is dropped).
    const parsed = Change.safeParse(this.#left.take(id)?.value);
    const left = parsed.success ? parsed.data : undefined;
    if (!left || (stored?.at ?? 0) > left.at) return stored && { graph: stored.graph, version: stored.version };
    void this.#write(id, left);
    return left.draft ?? undefined;
  }

  #write(id: string, change: Change): Promise<void> {
    const written = change.draft ? set(idbKey(id), { ...change.draft, at: change.at }) : del(idbKey(id));
    return this.#left.track(id, change, written).catch(() => undefined);
  }
}
