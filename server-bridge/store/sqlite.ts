/**
 * The SQLite store: one file under $DATA_DIR, WAL mode, a busy timeout, versioned migrations applied
 * inside an immediate transaction (so several processes opening one directory at once migrate once).
 * better-sqlite3 is synchronous: a statement runs when it is issued, and a transaction holds the one
 * connection until its callback settles, so statements from outside it wait their turn.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Statement, Store } from "./db.ts";
import { SQLITE_FILE } from "./location.ts";
import { initial } from "./migrations/001-initial.ts";
import { jobs } from "./migrations/002-jobs.ts";
import { assets } from "./migrations/003-assets.ts";
import { escapedValues } from "./migrations/004-escaped-values.ts";
import { apiTokens } from "./migrations/005-api-tokens.ts";
import { agent } from "./migrations/006-agent.ts";
import { widgets } from "./migrations/007-widgets.ts";
import { scriptSessions } from "./migrations/008-script-sessions.ts";
import { threadRevisions } from "./migrations/009-thread-revisions.ts";
import { workflowVersions } from "./migrations/010-workflow-versions.ts";
import { messageSearch } from "./migrations/011-message-search.ts";
import { localSignals } from "./signals.ts";

const MAX_CACHED_STATEMENTS = 500;

/** A migration is SQL, or a step over the rows that SQL alone cannot express. */
export type Migration = string | ((db: Database.Database) => void);

export const MIGRATIONS: readonly Migration[] = [
  initial,
  jobs,
  assets,
  escapedValues,
  apiTokens,
  agent,
  widgets,
  scriptSessions,
  threadRevisions,
  workflowVersions,
  messageSearch,
];

export interface SqliteStore extends Store {
  readonly dialect: "sqlite";
  /** The connection itself, for what only SQLite has (pragmas, tests reading a row synchronously). */
  readonly db: Database.Database;
  /** Closes at once (a test's `using`); `dispose` also waits for an open transaction. */
  [Symbol.dispose](): void;
}

/** The transaction a statement belongs to: the async context it was issued from. */
const inTx = new AsyncLocalStorage<object>();

export function openSqlite(dataDir: string): SqliteStore {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, SQLITE_FILE));
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  // SQLite's own lower() folds ASCII only: "École" would not match "école". JavaScript's folds every
  // script, as Postgres's does, so a search finds the same rows on either store.
  db.function("lower", { deterministic: true }, (text: unknown) => (text === null ? null : String(text).toLowerCase()));
  migrate(db);
  let disposed = false;
  /** The open transaction's token, and a promise that settles when it ends. */
  let current: { token: object; ended: Promise<void> } | undefined;
  let savepoints = 0;
  const statements = new Map<string, Statement>();

  const mine = () => current !== undefined && inTx.getStore() === current.token;
  const exec = async <T>(step: () => T): Promise<T> => {
    while (current && !mine()) await current.ended;
    return step();
  };
  const prepare = (text: string): Statement => {
    let prepared: Database.Statement | undefined;
    const statement = () => {
      prepared ??= db.prepare(text);
      return prepared;
    };
    return {
      get: (...params) => exec(() => statement().get(...params)),
      all: (...params) => exec(() => statement().all(...params)),
      run: (...params) => exec(() => ({ changes: statement().run(...params).changes })),
    };
  };

  const signals = localSignals();
  const store: SqliteStore = {
    dialect: "sqlite",
    db,
    dataDir,
    signals,
    get open() {
      return !disposed && db.open;
    },
    sql(text) {
      let statement = statements.get(text);
      if (!statement) {
        // Texts are the code's own (a few filter shapes at most); the bound only guards a mistake.
        if (statements.size >= MAX_CACHED_STATEMENTS) statements.clear();
        statement = prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
    async tx(fn) {
      if (mine()) {
        const name = `sp${++savepoints}`;
        db.exec(`SAVEPOINT ${name}`);
        try {
          const result = await fn();
          db.exec(`RELEASE ${name}`);
          return result;
        } catch (err) {
          db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
          throw err;
        } finally {
          savepoints--;
        }
      }
      while (current) await current.ended;
      let end = () => {};
      const token = {};
      current = { token, ended: new Promise<void>((resolve) => (end = resolve)) };
      try {
        db.exec("BEGIN IMMEDIATE");
        try {
          const result = await inTx.run(token, fn);
          db.exec("COMMIT");
          return result;
        } catch (err) {
          if (db.inTransaction) db.exec("ROLLBACK");
          throw err;
        }
      } finally {
        current = undefined;
        end();
      }
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await signals.dispose();
      while (current) await current.ended;
      db.close();
    },
    [Symbol.asyncDispose]: () => store.dispose(),
    [Symbol.dispose]() {
      disposed = true;
      void signals.dispose();
      if (db.open) db.close();
    },
  };
  return store;
}

function migrate(db: Database.Database): void {
  db.transaction(() => {
    const current = db.pragma("user_version", { simple: true }) as number;
    for (let version = current; version < MIGRATIONS.length; version++) {
      const migration = MIGRATIONS[version] as Migration;
      if (typeof migration === "string") db.exec(migration);
      else migration(db);
      db.pragma(`user_version = ${version + 1}`);
    }
  }).immediate();
}
