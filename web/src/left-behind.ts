/**
 * A write to IndexedDB is asynchronous, and one still under way when the page goes (a reload in the same
 * moment as a keystroke) is lost with the page. A LeftBehind remembers each write until it settles; when
 * the page is hidden to go (`pagehide`) it writes the unsettled ones, synchronously, to localStorage,
 * where the next page takes them back (`take`) and writes them to IndexedDB again. Where localStorage is
 * refused (a widget framed by another site, or full), IndexedDB's own write is all there is.
 */

/** localStorage, or undefined where the page may not use it. */
function local(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

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
        if (this.#leftHere.delete(key)) local()?.removeItem(this.prefix + key);
      }
    }
  }

  /** What a page left for `key` as it went, taken out (the caller writes it to IndexedDB again). */
  take(key: string): Left<T> | undefined {
    const storage = local();
    const text = storage?.getItem(this.prefix + key);
    if (!text) return undefined;
    storage?.removeItem(this.prefix + key);
    try {
      const left = JSON.parse(text) as Left<T>;
      return left && typeof left === "object" && "value" in left ? left : undefined;
    } catch {
      return undefined;
    }
  }

  #leave(): void {
    const storage = local();
    for (const [key, entry] of this.#unsettled) {
      try {
        storage?.setItem(this.prefix + key, JSON.stringify(entry));
        this.#leftHere.add(key);
      } catch {
        // Full (a very large value): IndexedDB's own write may still land.
      }
    }
  }
}
