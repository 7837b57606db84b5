/**
 * Signals over Postgres `LISTEN`/`NOTIFY`. One channel per store (database and schema: stores in other
 * schemas of the same database never hear each other), one dedicated listener connection per process,
 * opened when the first handler is registered. A notification is sent with `pg_notify` through the
 * store, so one issued inside a transaction goes out when it commits, never before its row is
 * readable. When the listener connection drops it reconnects with backoff and then runs the resync
 * handlers: notifications sent while it was down are lost, the store is not.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import type { Store } from "../db.ts";
import { encodeSignal, SignalHandlers, type Signals } from "../signals.ts";

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;

export interface PostgresSignals extends Signals {
  /** The listener connection's backend pid while it is connected (tests terminate it). */
  listenerPid(): number | undefined;
}

/** The channel of the store `pool` sees: named after its database and first schema on the search path. */
export async function channelOf(pool: pg.Pool): Promise<string> {
  const row = (await pool.query("SELECT current_database() AS db, current_schema() AS schema")).rows[0] as {
    db: string;
    schema: string | null;
  };
  return `nt_${createHash("sha256")
    .update(`${row.db}/${row.schema ?? ""}`)
    .digest("hex")
    .slice(0, 24)}`;
}

export function postgresSignals(options: { url: string; channel: string; store: Store }): PostgresSignals {
  const { url, channel, store } = options;
  const handlers = new SignalHandlers();
  const send = store.sql("SELECT pg_notify(?, ?)");
  let client: pg.Client | undefined;
  let pid: number | undefined;
  let started = false;
  let disposed = false;
  let retryMs = FIRST_RETRY_MS;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let firstAttempt!: () => void;
  const attempted = new Promise<void>((resolve) => {
    firstAttempt = resolve;
  });

  const connect = async (reconnect: boolean) => {
    const next = new pg.Client({ connectionString: url, application_name: "nodetool listener" });
    const lost = (err?: unknown) => {
      if (client !== next) return;
      client = undefined;
      pid = undefined;
      next.removeAllListeners("notification");
      next.end().catch(() => {});
      if (disposed) return;
      handlers.warn("the store's notification listener lost its connection; reconnecting", err);
      schedule(true);
    };
    client = next;
    next.on("error", lost);
    next.on("end", () => lost());
    next.on("notification", (message) => void handlers.dispatch(message.payload ?? ""));
    try {
      await next.connect();
      await next.query(`LISTEN ${next.escapeIdentifier(channel)}`);
      pid = ((await next.query("SELECT pg_backend_pid() AS pid")).rows[0] as { pid: number }).pid;
    } catch (err) {
      // The connection is not listening: drop it and try again later (`lost` reschedules once).
      if (client === next) lost(err);
      return;
    } finally {
      firstAttempt();
    }
    if (disposed) {
      await next.end().catch(() => {});
      return;
    }
    retryMs = FIRST_RETRY_MS;
    if (reconnect) await handlers.resync();
  };

  const schedule = (reconnect: boolean) => {
    clearTimeout(retry);
    retry = setTimeout(() => void connect(reconnect), retryMs);
    retry.unref();
    retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
  };

  const start = () => {
    if (started || disposed) return;
    started = true;
    void connect(false);
  };

  return {
    crossProcess: true,
    async notify(kind, id) {
      if (disposed || !store.open) return;
      try {
        await send.run(channel, encodeSignal(kind, id));
      } catch (err) {
        // Lost signals are covered: waiters poll slowly, pages list pending approvals on reconnect.
        handlers.warn(`could not notify the ${kind} signal for "${id}"`, err);
      }
    },
    on(kind, handler) {
      handlers.on(kind, handler);
      start();
    },
    onResync(handler) {
      handlers.onResync(handler);
      start();
    },
    onWarning: (report) => handlers.onWarning(report),
    ready: () => (started ? attempted : Promise.resolve()),
    listenerPid: () => pid,
    async dispose() {
      if (disposed) return;
      disposed = true;
      clearTimeout(retry);
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
