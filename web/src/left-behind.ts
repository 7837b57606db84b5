/**
 * A write to IndexedDB is asynchronous, and one still under way when the page goes (a reload in the same
 * moment as a keystroke) is lost with the page. A LeftBehind remembers each write until it settles; when
 * the page is hidden to go (`pagehide`) it writes the unsettled ones, synchronously, to localStorage,
 * where the next page takes them back (`take`) and writes them to IndexedDB again. Where localStorage is
 * refused (a widget framed by another site, or full), IndexedDB's own write is all there is.
 */

/** localStorage, each use of it failing quietly where the page may not use it (or it is full). */
const local = {
  get(key: string): string | null {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  /** Answers whether it was written. */
  set(key: string, value: string): boolean {
    try {
      window.localStorage.setItem(key, value);
      return true;
    } catch {
      return false;
    }
  },
  remove(key: string): void {
    try {
      window.localStorage.removeItem(key);
    } catch {
      // Nothing to remove where nothing could be written.
    }
  },
};

/** A value left behind (`null`: the key was being removed). */
export interface Left<T> {
  value: T | null;
}

export class LeftBehind<T> {
  readonly #unsettled = new Map<string, Left<T>>();
  /** Keys this page left in localStorage as it was hidden (and then came back: a page kept in memory). */
  readonly #leftHere = new Set<string>();

  constructor(
    readonly prefix: string,
    target: Pick<Window, "addEventListener"> = window,
  ) {
    target.addEventListener("pagehide", () => this.#leave());
  }

  /** `written` writes `value` (null: removes the key); until it settles, a page that goes leaves it behind. */
  async track(key: string, value: T | null, written: Promise<void>): Promise<void> {
    const entry: Left<T> = { value };
    this.#unsettled.set(key, entry);
    try {
      await written;
    } finally {
      if (this.#unsettled.get(key) === entry) {
        this.#unsettled.delete(key);
        if (this.#leftHere.delete(key)) local.remove(this.prefix + key);
      }
    }
  }

  /** What a page left for `key` as it went, taken out (the caller writes it to IndexedDB again). */
  take(key: string): Left<T> | undefined {
    const text = local.get(this.prefix + key);
    if (!text) return undefined;
    local.remove(this.prefix + key);
    try {
      const left = JSON.parse(text) as Left<T>;
      return left && typeof left === "object" && "value" in left ? left : undefined;
    } catch {
      return undefined;
    }
  }

  #leave(): void {
    // Where it cannot be written (full: a very large value), IndexedDB's own write may still land.
    for (const [key, entry] of this.#unsettled) {
      if (local.set(this.prefix + key, JSON.stringify(entry))) this.#leftHere.add(key);
    }
  }
}
