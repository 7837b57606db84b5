/**
 * The SQLite store: one file under $DATA_DIR, WAL mode, a busy timeout, versioned migrations applied
 * inside an immediate transaction (so several processes opening one directory at once migrate once).
 * Owns the connection's lifetime; everything else receives a `Store`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { initial } from "./migrations/001-initial.ts";
import { jobs } from "./migrations/002-jobs.ts";
import { assets } from "./migrations/003-assets.ts";
import { escapedValues } from "./migrations/004-escaped-values.ts";
import { apiTokens } from "./migrations/005-api-tokens.ts";
import { agent } from "./migrations/006-agent.ts";
import { widgets } from "./migrations/007-widgets.ts";

const MAX_CACHED_STATEMENTS = 500;

/** A migration is SQL, or a step over the rows that SQL alone cannot express. */
export type Migration = string | ((db: Database.Database) => void);

export const MIGRATIONS: readonly Migration[] = [initial, jobs, assets, escapedValues, apiTokens, agent, widgets];

export interface Store {
  readonly db: Database.Database;
  readonly dataDir: string;
  /** The statement for this SQL text, prepared once per connection and reused. */
  sql(text: string): Database.Statement;
  /** Runs `fn` in one IMMEDIATE transaction: every multi-row write goes through here. */
  tx<T>(fn: () => T): T;
  dispose(): void;
  [Symbol.dispose](): void;
}

export function openStore(dataDir: string): Store {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, "nodetool.sqlite"));
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  migrate(db);
  let disposed = false;
  const statements = new Map<string, Database.Statement>();
  const store: Store = {
    db,
    dataDir,
    sql(text) {
      let statement = statements.get(text);
      if (!statement) {
        // Texts are the code's own (a few filter shapes at most); the bound only guards a mistake.
        if (statements.size >= MAX_CACHED_STATEMENTS) statements.clear();
        statement = db.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
    tx: (fn) => db.transaction(fn).immediate(),
    dispose() {
      if (disposed) return;
      disposed = true;
      db.close();
    },
    [Symbol.dispose]() {
      store.dispose();
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

export function now(): number {
  return Date.now();
}
