/**
 * In-process wake-ups for `jobs.wait`: a waiter sleeps until its job settles here or `ms` passes
 * (then it looks at the row again, which is how a job settled by another process is seen), or its
 * caller's signal aborts. Every wait is bounded by its `ms`.
 */
export class Waiters {
  readonly #byJob = new Map<string, Set<() => void>>();

  next(jobId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const set = this.#byJob.get(jobId) ?? new Set();
      this.#byJob.set(jobId, set);
      const wake = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", wake);
        set.delete(wake);
        if (set.size === 0 && this.#byJob.get(jobId) === set) this.#byJob.delete(jobId);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      signal.addEventListener("abort", wake, { once: true });
      set.add(wake);
    });
  }

  wake(jobId: string): void {
    for (const wake of [...(this.#byJob.get(jobId) ?? [])]) wake();
  }
}
