/**
 * Live per-session event fan-out (approval requests and settlements, run ends, mode and allow-set
 * changes, job progress). Every event gets an id (`<process>-<sequence>`) and the last few of each
 * session are kept for a while, so a resubscription that names the last id it saw (tRPC's
 * `tracked()` / `lastEventId`, on the page's socket or over SSE) is first replayed what it missed: a
 * `run_ended` published while the socket was down still arrives. What must survive a restart
 * (pending approvals) is in the store and replayed from there on every (re)connect.
 */
import type { SessionEvent } from "../../shared/protocol/server.ts";

export interface StampedEvent {
  id: string;
  event: SessionEvent;
}

type Listener = (stamped: StampedEvent) => void;

const MAX_QUEUED = 1000;
/** Events kept per session for resumption, and for how long. */
const KEPT_EVENTS = 200;
const KEPT_MS = 10 * 60_000;
/** Every this many events, sessions whose newest kept event is older than KEPT_MS are forgotten. */
const SWEEP_EVERY = 500;

export class EventBus {
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #kept = new Map<string, { at: number; stamped: StampedEvent }[]>();
  /** Ids from another process (or a restart) never match, so nothing is replayed for them. */
  readonly #process = globalThis.crypto.randomUUID().slice(0, 8);
  #sequence = 0;

  publish(sessionId: string, event: SessionEvent): void {
    const stamped: StampedEvent = { id: `${this.#process}-${++this.#sequence}`, event };
    const at = Date.now();
    const kept = this.#kept.get(sessionId) ?? [];
    kept.push({ at, stamped });
    if (kept.length > KEPT_EVENTS) kept.splice(0, kept.length - KEPT_EVENTS);
    this.#kept.set(sessionId, kept);
    if (this.#sequence % SWEEP_EVERY === 0) this.#sweep(at);
    for (const listener of this.#listeners.get(sessionId) ?? []) listener(stamped);
  }

  /** The id of the newest event so far (what a replayed pending approval is stamped with). */
  lastId(): string {
    return `${this.#process}-${this.#sequence}`;
  }

  /**
   * Starts listening at once (so nothing published after this call is missed, even before the first
   * `next()`), first yields the kept events after `afterId` (when it is one of ours), then live events
   * until `signal` aborts.
   */
  subscribe(sessionId: string, signal: AbortSignal, afterId?: string | null): AsyncGenerator<StampedEvent> {
    const queue: StampedEvent[] = this.#missed(sessionId, afterId);
    let wake: (() => void) | undefined;
    const listener: Listener = (stamped) => {
      if (queue.length < MAX_QUEUED) queue.push(stamped);
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

  #missed(sessionId: string, afterId: string | null | undefined): StampedEvent[] {
    if (!afterId) return [];
    const [process, sequence] = afterId.split("-");
    const after = Number(sequence);
    if (process !== this.#process || !Number.isInteger(after)) return [];
    return (this.#kept.get(sessionId) ?? [])
      .map((entry) => entry.stamped)
      .filter((stamped) => Number(stamped.id.split("-")[1]) > after);
  }

  #sweep(now: number): void {
    for (const [sessionId, kept] of this.#kept) {
      const newest = kept[kept.length - 1];
      if (!newest || now - newest.at > KEPT_MS) this.#kept.delete(sessionId);
    }
  }
}
