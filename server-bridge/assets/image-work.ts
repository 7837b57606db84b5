/**
 * Image work takes turns: every sharp decode or encode in the process runs under one small
 * semaphore, so eight image jobs at once queue instead of filling every core (and libuv's thread
 * pool) while `/health`, the API and the sandbox wait. The limit is process-wide, like libvips itself.
 */
import { availableParallelism } from "node:os";

export class Semaphore {
  #limit: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  /** The most holders and waiters ever seen at once (for tests and diagnostics). */
  readonly peak = { active: 0, waiting: 0 };

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  get limit(): number {
    return this.#limit;
  }

  set limit(limit: number) {
    this.#limit = Math.max(1, limit);
    this.#next();
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#limit) {
      await new Promise<void>((resolve) => {
        this.#waiting.push(resolve);
        this.peak.waiting = Math.max(this.peak.waiting, this.#waiting.length);
      });
    } else this.#active++;
    this.peak.active = Math.max(this.peak.active, this.#active);
    try {
      return await fn();
    } finally {
      this.#active--;
      this.#next();
    }
  }

  /** Hands free slots to waiters, oldest first (a slot passes straight to the next waiter). */
  #next(): void {
    while (this.#active < this.#limit) {
      const wake = this.#waiting.shift();
      if (!wake) return;
      this.#active++;
      wake();
    }
  }
}

/** Default: all cores but one (at least one), at most four. */
export const DEFAULT_IMAGE_CONCURRENCY = Math.max(1, Math.min(4, availableParallelism() - 1));

export const imageWork = new Semaphore(DEFAULT_IMAGE_CONCURRENCY);
