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
    for (const listener of this.#listeners) listener();
  }
}
