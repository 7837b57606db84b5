/**
 * The store interface: SQL text with `?` (and `@name`) placeholders, run asynchronously against the
 * backend chosen at start (SQLite, the zero-configuration default; Postgres with `DATABASE_URL`). A
 * transaction takes an async callback; every statement issued inside it (in its async context) runs
 * in it, and statements from elsewhere wait until it ends. Owns nothing itself: `openStore` picks the
 * backend, which owns its connections.
 */
import { markPostgres, refuseSqliteOnPostgres, storeOpenFailed } from "./location.ts";
import { openPostgres } from "./postgres.ts";
import type { Signals } from "./signals.ts";
import { openSqlite } from "./sqlite.ts";

export type Dialect = "sqlite" | "postgres";

/** One statement: parameters are positional values for `?` and, first, an object for `@name`. */
export interface Statement {
  get(...params: unknown[]): Promise<unknown>;
  all(...params: unknown[]): Promise<unknown[]>;
  /** `changes`: rows the statement inserted, updated or deleted. */
  run(...params: unknown[]): Promise<{ changes: number }>;
}

export interface Store {
  readonly dialect: Dialect;
  readonly dataDir: string;
  /** False once `dispose` began: late writers (a timer after shutdown) have nowhere to write. */
  readonly open: boolean;
  /** The statement for this SQL text (prepared once per connection where the backend can). */
  sql(text: string): Statement;
  /** "This row changed", told to the processes sharing the store (ids only); disposed with the store. */
  readonly signals: Signals;
  /** Runs `fn` in one transaction (IMMEDIATE on SQLite): every multi-row write goes through here. */
  tx<T>(fn: () => Promise<T>): Promise<T>;
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Postgres when `databaseUrl` is given, else the SQLite file in `dataDir`. A failure to open says
 * which setting to check (`DATABASE_URL`, `DATA_DIR`) and where, never the password. A `dataDir` opened
 * on Postgres is marked so, and SQLite is then refused there (`WrongStore`) before anything is created.
 */
export async function openStore(dataDir: string, databaseUrl?: string): Promise<Store> {
  if (!databaseUrl) refuseSqliteOnPostgres(dataDir);
  let store: Store;
  try {
    store = databaseUrl ? await openPostgres(databaseUrl, dataDir) : openSqlite(dataDir);
  } catch (err) {
    throw storeOpenFailed(dataDir, databaseUrl, err);
  }
  if (databaseUrl) markPostgres(dataDir, databaseUrl);
  return store;
}

export function now(): number {
  return Date.now();
}
