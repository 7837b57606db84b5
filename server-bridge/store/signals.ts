/**
 * Signals: "the row `id` of `kind` changed", told to every process sharing the store (this one
 * included), ids only. On Postgres they travel as `NOTIFY` on one channel per store (postgres/signals.ts);
 * on SQLite (one server process) they stay in the process, and other processes on the file (the CLI, a
 * stdio MCP server) are still seen by polling. Any database role may send a notification, so a signal
 * is never trusted beyond its id: a handler re-reads the row and checks it before acting. Notifications
 * sent while a listener was disconnected are lost: after it reconnects, `onResync` handlers re-read
 * what they wait on.
 */

export const SIGNAL_KINDS = ["approval", "run", "job"] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/** Handles one signal; a string it returns says why it was ignored (logged as a warning). */
export type SignalHandler = (id: string) => Promise<string | undefined>;

export interface Signals {
  /** True when other processes' signals reach this one (Postgres); false on SQLite (polling stays). */
  readonly crossProcess: boolean;
  /** Tells every process. Inside a store transaction it is sent when the transaction commits. Never rejects. */
  notify(kind: SignalKind, id: string): Promise<void>;
  on(kind: SignalKind, handler: SignalHandler): void;
  /** After a lost listener connection came back: re-read from the store what this process waits on. */
  onResync(handler: () => Promise<void>): void;
  /** Signals ignored (garbage, unknown ids) and listener trouble, for the process's log. */
  onWarning(report: (message: string, detail?: unknown) => void): void;
  /** Resolves once this process hears other processes (at once in-process; first LISTEN, or first failure, on Postgres). */
  ready(): Promise<void>;
  dispose(): Promise<void>;
}

const ID = /^[A-Za-z0-9_-]{1,200}$/;

/** `kind:id` on the wire; anything else is not a signal. */
export function encodeSignal(kind: SignalKind, id: string): string {
  return `${kind}:${id}`;
}

export function parseSignal(payload: string): { kind: SignalKind; id: string } | undefined {
  const colon = payload.indexOf(":");
  const kind = payload.slice(0, colon);
  const id = payload.slice(colon + 1);
  if (colon < 0 || !(SIGNAL_KINDS as readonly string[]).includes(kind) || !ID.test(id)) return undefined;
  return { kind: kind as SignalKind, id };
}

/** The handler lists both implementations share, and how a signal reaches them. */
export class SignalHandlers {
  readonly #handlers = new Map<SignalKind, SignalHandler[]>();
  readonly #resync: (() => Promise<void>)[] = [];
  readonly #warnings: ((message: string, detail?: unknown) => void)[] = [];
  /** Signals are handled one at a time, in the order they arrived (the order their writes committed). */
  #queue: Promise<void> = Promise.resolve();

  on(kind: SignalKind, handler: SignalHandler): void {
    this.#handlers.set(kind, [...(this.#handlers.get(kind) ?? []), handler]);
  }

  onResync(handler: () => Promise<void>): void {
    this.#resync.push(handler);
  }

  onWarning(report: (message: string, detail?: unknown) => void): void {
    this.#warnings.push(report);
  }

  warn(message: string, detail?: unknown): void {
    for (const report of this.#warnings) report(message, detail);
  }

  /** One received payload, after those before it: parsed, then each handler of its kind. Never rejects. */
  dispatch(payload: string): Promise<void> {
    this.#queue = this.#queue.then(() => this.#handle(payload));
    return this.#queue;
  }

  async #handle(payload: string): Promise<void> {
    const signal = parseSignal(payload);
    if (!signal) {
      this.warn("ignored a notification that is not a signal (expected kind:id)", payload.slice(0, 120));
      return;
    }
    for (const handler of this.#handlers.get(signal.kind) ?? []) {
      try {
        const ignored = await handler(signal.id);
        if (ignored) this.warn(`ignored the ${signal.kind} signal for "${signal.id}": ${ignored}`);
      } catch (err) {
        this.warn(`handling the ${signal.kind} signal for "${signal.id}" failed; the safety poll reads it again`, err);
      }
    }
  }

  resync(): Promise<void> {
    this.#queue = this.#queue.then(() => this.#resyncNow());
    return this.#queue;
  }

  async #resyncNow(): Promise<void> {
    for (const handler of this.#resync) {
      await handler().catch((err: unknown) => this.warn("resynchronising from the store failed", err));
    }
  }
}

/** SQLite: one process, so a signal reaches this process's handlers only (on a later turn, as a NOTIFY would). */
export function localSignals(): Signals {
  const handlers = new SignalHandlers();
  let disposed = false;
  return {
    crossProcess: false,
    notify: async (kind, id) => {
      if (disposed) return;
      setImmediate(() => void handlers.dispatch(encodeSignal(kind, id)));
    },
    on: (kind, handler) => handlers.on(kind, handler),
    onResync: (handler) => handlers.onResync(handler),
    onWarning: (report) => handlers.onWarning(report),
    ready: async () => {},
    dispose: async () => {
      disposed = true;
    },
  };
}
