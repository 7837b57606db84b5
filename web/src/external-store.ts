/**
 * A value the page's React components read with `useSyncExternalStore(store.subscribe,
 * store.getSnapshot)`; its owner (a subclass) replaces it with `publish`, which tells every subscriber.
 */
export class ExternalStore<T> {
  #value: T;
  readonly #listeners = new Set<() => void>();

  constructor(initial: T) {
    this.#value = initial;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  getSnapshot = (): T => this.#value;

  protected publish(value: T): void {
    this.#value = value;
    this.#tell();
  }

  #soon: ReturnType<typeof setTimeout> | undefined;

  /**
   * As `publish`, but the subscribers hear of it once for every change within `ms` (a burst of a
   * job's progress events draws the page once, not once per event); `getSnapshot` has it at once.
   */
  protected publishSoon(value: T, ms = 16): void {
    this.#value = value;
    this.#soon ??= setTimeout(() => this.#tell(), ms);
  }

  #tell(): void {
    clearTimeout(this.#soon);
    this.#soon = undefined;
    for (const listener of this.#listeners) listener();
  }
}
