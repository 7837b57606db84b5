/**
 * Live per-session event fan-out (approval requests and settlements, run ends, mode and allow-set
 * changes, job progress). Every event gets an id (`<process>-<sequence>`) and the last few of each
 * session are kept for a while, so a resubscription that names the last id it saw (tRPC's
 * `tracked()` / `lastEventId`, on the page's socket or over SSE) is first replayed what it missed: a
 * `run_ended` published while the socket was down still arrives. What must survive a restart
 * (pending approvals) is in the store and replayed from there on every (re)connect. Events published
 * to a user (`publishUser`: the workflow change feed) reach every session of that user that listens
 * with its user id, and are kept and replayed the same way. An event published with `person` also
 * reaches the user's signed-in pages (a script's approvals, which have no page of their own).
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

/** Session ids never start with these, so a user's channels cannot collide with a session's. */
const userKey = (userId: string) => `user:${userId}`;
/** What only the user's signed-in pages hear (a script's approvals): never a widget's iframe. */
const personKey = (userId: string) => `person:${userId}`;

/** What capabilities may announce to every session of a user (the workflow change feed). */
export interface UserEvents {
  publishUser(userId: string, event: SessionEvent): void;
}

export class EventBus implements UserEvents {
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #kept = new Map<string, { at: number; stamped: StampedEvent }[]>();
  /** Ids from another process (or a restart) never match, so nothing is replayed for them. */
  readonly #process = globalThis.crypto.randomUUID().slice(0, 8);
  #sequence = 0;

  publish(sessionId: string, event: SessionEvent, person?: string): void {
    this.#publish(person === undefined ? [sessionId] : [sessionId, personKey(person)], event);
  }

  /** To every session of the user that is listening with its `userId` (see `subscribe`). */
  publishUser(userId: string, event: SessionEvent): void {
    this.#publish([userKey(userId)], event);
  }

  /**
   * One event on several channels: one id, and a listener on more than one of them (a signed-in page
   * watching a script's session) hears it once.
   */
  #publish(keys: readonly string[], event: SessionEvent): void {
    const stamped: StampedEvent = { id: `${this.#process}-${++this.#sequence}`, event };
    const at = Date.now();
    const listeners = new Set<Listener>();
    for (const key of keys) {
      const kept = this.#kept.get(key) ?? [];
      kept.push({ at, stamped });
      if (kept.length > KEPT_EVENTS) kept.splice(0, kept.length - KEPT_EVENTS);
      this.#kept.set(key, kept);
      for (const listener of this.#listeners.get(key) ?? []) listeners.add(listener);
    }
    if (this.#sequence % SWEEP_EVERY === 0) this.#sweep(at);
    for (const listener of listeners) listener(stamped);
  }

  /** The id of the newest event so far (what a replayed pending approval is stamped with). */
  lastId(): string {
    return `${this.#process}-${this.#sequence}`;
  }

  /**
   * Starts listening at once (so nothing published after this call is missed, even before the first
   * `next()`), first yields the kept events after `afterId` (when it is one of ours), then live events
   * until `signal` aborts: the session's, with `userId` its user's too, and with `person` also what
   * only the user's signed-in pages hear.
   */
  subscribe(
    sessionId: string,
    signal: AbortSignal,
    afterId?: string | null,
    userId?: string,
    person = false,
  ): AsyncGenerator<StampedEvent> {
    const keys = userId === undefined ? [sessionId] : [sessionId, userKey(userId)];
    if (userId !== undefined && person) keys.push(personKey(userId));
    const queue: StampedEvent[] = this.#missed(keys, afterId);
    let wake: (() => void) | undefined;
    const listener: Listener = (stamped) => {
      if (queue.length < MAX_QUEUED) queue.push(stamped);
      wake?.();
    };
    const listeners = this.#listeners;
    for (const key of keys) {
      let set = listeners.get(key);
      if (!set) {
        set = new Set();
        listeners.set(key, set);
      }
      set.add(listener);
    }
    const onAbort = () => {
      release();
      wake?.();
    };
    signal.addEventListener("abort", onAbort);
    const release = () => {
      signal.removeEventListener("abort", onAbort);
      for (const key of keys) {
        const set = listeners.get(key);
        set?.delete(listener);
        if (set?.size === 0) listeners.delete(key);
      }
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

  #missed(keys: readonly string[], afterId: string | null | undefined): StampedEvent[] {
    if (!afterId) return [];
    const [process, sequence] = afterId.split("-");
    const after = Number(sequence);
    if (process !== this.#process || !Number.isInteger(after)) return [];
    const order = (stamped: StampedEvent) => Number(stamped.id.split("-")[1]);
    // An event kept on two of these channels is one event (one id): replayed once.
    const missed = new Map<string, StampedEvent>();
    for (const key of keys)
      for (const { stamped } of this.#kept.get(key) ?? []) if (order(stamped) > after) missed.set(stamped.id, stamped);
    return [...missed.values()].sort((a, b) => order(a) - order(b));
  }

  #sweep(now: number): void {
    for (const [sessionId, kept] of this.#kept) {
      const newest = kept[kept.length - 1];
      if (!newest || now - newest.at > KEPT_MS) this.#kept.delete(sessionId);
    }
  }
}
