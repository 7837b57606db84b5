/**
 * The action clock: a wall-time deadline that does not count approval waits. Each call result says
 * how long it waited for a person; the clock credits that back, capped in total so a stream of
 * "approvals" cannot keep an action alive forever. Reads are never credited (they never wait).
 * The worker learns of a wait only when the result arrives, so an idle action whose calls are still
 * in flight at the deadline is given until the credit cap; the VM itself never runs past the deadline.
 *
 * The clock also publishes the deadline of the synchronous VM slice now running to an optional
 * `SliceWatch` (shared memory, or messages on a port, read by a watchdog outside the worker), which terminates the worker
 * when a slice overruns because some builtin never checks the interrupt.
 */

export interface SliceWatch {
  /** A synchronous slice starts; it must end before `deadline` (epoch ms). */
  begin(deadline: number): void;
  end(): void;
  /** Whether the host asked, through shared memory, to stop the action now running. */
  stopRequested?(): boolean;
}

/** Runs each `fn` as one synchronous VM slice, announced to `watch` with the deadline of the moment. */
export function watchedSlices(watch: SliceWatch | undefined, deadline: () => number): <T>(fn: () => T) => T {
  return (fn) => {
    watch?.begin(deadline());
    try {
      return fn();
    } finally {
      watch?.end();
    }
  };
}

/**
 * Writes slice deadlines into shared memory for the watchdog (index 0; 0 = no slice running) and reads
 * the host's stop request (index 1, when the buffer has it: shared/sandbox/watchdog.ts).
 */
export function sharedSliceWatch(buffer: SharedArrayBuffer): SliceWatch {
  const cells = new BigInt64Array(buffer);
  const watch: SliceWatch = {
    begin: (deadline) => Atomics.store(cells, 0, BigInt(Math.ceil(deadline))),
    end: () => Atomics.store(cells, 0, 0n),
  };
  if (cells.length > 1) watch.stopRequested = () => Atomics.load(cells, 1) !== 0n;
  return watch;
}

/** Posts slice deadlines on a port for the watchdog (where there is no shared memory); 0 ends a slice. */
export function portSliceWatch(port: { postMessage(message: number): void }): SliceWatch {
  return {
    begin: (deadline) => port.postMessage(Math.ceil(deadline)),
    end: () => port.postMessage(0),
  };
}

export class ActionClock {
  readonly startedAt: number;
  #deadline: number;
  #credited = 0;
  readonly #creditCap: number;
  readonly #now: () => number;

  constructor(options: { timeoutMs: number; creditCapMs: number; now?: () => number }) {
    this.#now = options.now ?? Date.now;
    this.startedAt = this.#now();
    this.#deadline = this.startedAt + options.timeoutMs;
    this.#creditCap = options.creditCapMs;
  }

  get deadline(): number {
    return this.#deadline;
  }

  get credited(): number {
    return this.#credited;
  }

  /** Adds an approval wait back to the deadline; returns what was actually credited. */
  credit(waitedMs: number): number {
    if (!(waitedMs > 0)) return 0;
    const granted = Math.min(waitedMs, this.#creditCap - this.#credited);
    if (granted <= 0) return 0;
    this.#credited += granted;
    this.#deadline += granted;
    return granted;
  }

  /** How much approval wait may still be credited. */
  creditLeft(): number {
    return this.#creditCap - this.#credited;
  }

  /**
   * Past the deadline even if every call now pending turns out to have waited for an approval: only
   * then may an idle action with calls in flight be ended (their results say how long they waited).
   */
  expiredBeyondCredit(): boolean {
    return this.#now() >= this.#deadline + this.creditLeft();
  }

  remaining(): number {
    return this.#deadline - this.#now();
  }

  expired(): boolean {
    return this.#now() >= this.#deadline;
  }

  elapsed(): number {
    return this.#now() - this.startedAt;
  }
}
