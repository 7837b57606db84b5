/**
 * Live per-session event fan-out (approval requests and settlements, run ends, mode and allow-set
 * changes). In-process waiters only: what must survive a restart (pending approvals) is in the store
 * and replayed from there on every (re)connect.
 */
import type { SessionEvent } from "../../shared/protocol/server.ts";

type Listener = (event: SessionEvent) => void;

const MAX_QUEUED = 1000;

export class EventBus {
  readonly #listeners = new Map<string, Set<Listener>>();

  publish(sessionId: string, event: SessionEvent): void {
    for (const listener of this.#listeners.get(sessionId) ?? []) listener(event);
  }

  /**
   * Starts listening at once (so nothing published after this call is missed, even before the first
   * `next()`), and yields events until `signal` aborts.
   */
  subscribe(sessionId: string, signal: AbortSignal): AsyncGenerator<SessionEvent> {
    const queue: SessionEvent[] = [];
    let wake: (() => void) | undefined;
    const listener: Listener = (event) => {
      if (queue.length < MAX_QUEUED) queue.push(event);
      wake?.();
    };
    let set = this.#listeners.get(sessionId);
    if (!set) {
      set = new Set();
      this.#listeners.set(sessionId, set);
    }
    set.add(listener);
    const listeners = this.#listeners;
    const onAbort = () => {
      release();
      wake?.();
    };
    signal.addEventListener("abort", onAbort);
    const release = () => {
      signal.removeEventListener("abort", onAbort);
      set.delete(listener);
      if (set.size === 0 && listeners.get(sessionId) === set) listeners.delete(sessionId);
    };
    return (async function* () {
      try {
        while (!signal.aborted) {
          const next = queue.shift();
          if (next) {
            yield next;
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      } finally {
        release();
      }
    })();
  }

  listenerCount(sessionId: string): number {
    return this.#listeners.get(sessionId)?.size ?? 0;
  }
}
