/**
 * The Postgres store (`DATABASE_URL=postgres://...`): a connection pool, the same SQL text as SQLite
 * (`?` and `@name` placeholders become `$n` here), named prepared statements per connection, and
 * versioned migrations each applied in its own transaction under an advisory lock, so servers that
 * start at once migrate once. A transaction holds one pooled connection for its async callback (the
 * statements issued in its async context run on it) and takes a transaction-level advisory lock:
 * writers are serialised as SQLite's IMMEDIATE transactions are, so every read-modify-write the code
 * does in one `tx` stays atomic across processes.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync } from "node:fs";
import pg from "pg";
import type { Statement, Store } from "./db.ts";
import { schema } from "./postgres/001-schema.ts";
import { widgets } from "./postgres/002-widgets.ts";
import { scriptSessions } from "./postgres/003-script-sessions.ts";
import { threadRevisions } from "./postgres/004-thread-revisions.ts";
import { workflowVersions } from "./postgres/005-workflow-versions.ts";
import { messageSearch } from "./postgres/006-message-search.ts";
import { channelOf, type PostgresSignals, postgresSignals } from "./postgres/signals.ts";

/** Postgres migrations, in order (their own numbering: the first is the whole SQLite 001-006 schema, then 007 on). */
export const PG_MIGRATIONS: readonly string[] = [
  schema,
  widgets,
  scriptSessions,
  threadRevisions,
  workflowVersions,
  messageSearch,
];

/** Advisory lock keys (any 64-bit number; these spell "ntsb" and then a purpose). */
const MIGRATION_LOCK = 0x6e747362_0001;
const WRITE_LOCK = 0x6e747362_0002;

// BIGINT and NUMERIC (count, sum, millisecond timestamps) come back as numbers, as SQLite gives them.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => Number(text));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (text) => Number(text));

export interface PostgresStore extends Store {
  readonly dialect: "postgres";
  readonly pool: pg.Pool;
  readonly signals: PostgresSignals;
}

interface Translated {
  text: string;
  /** For each `$n`, where its value comes from: a position among the `?`s, or a name. */
  slots: (number | string)[];
}

/** `?` and `@name` outside quotes to `$1..$n` (a repeated name reuses its number). */
export function translate(sql: string): Translated {
  let out = "";
  const slots: (number | string)[] = [];
  const named = new Map<string, number>();
  let positional = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i] as string;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop + 1);
      i = stop;
    } else if (c === "?") {
      slots.push(positional++);
      out += `$${slots.length}`;
    } else if (c === "@" && /[A-Za-z_]/.test(sql[i + 1] ?? "")) {
      const name = /^[A-Za-z_]\w*/.exec(sql.slice(i + 1))?.[0] as string;
      let index = named.get(name);
      if (index === undefined) {
        slots.push(name);
        index = slots.length;
        named.set(name, index);
      }
      out += `$${index}`;
      i += name.length;
    } else out += c;
  }
  return { text: out, slots };
}

function bind(slots: readonly (number | string)[], params: readonly unknown[]): unknown[] {
  const first = params[0];
  const isNamed =
    first !== null && typeof first === "object" && !Array.isArray(first) && !(first instanceof Uint8Array);
  const names = (isNamed ? first : {}) as Record<string, unknown>;
  const positional = isNamed ? params.slice(1) : params;
  return slots.map((slot) => {
    const value = typeof slot === "number" ? positional[slot] : names[slot];
    return typeof value === "boolean" ? Number(value) : (value ?? null);
  });
}

export async function openPostgres(url: string, dataDir: string): Promise<PostgresStore> {
  // Files (assets, tokens) still live under $DATA_DIR; rows live in Postgres.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // A connection attempt is bounded: an unreachable host fails the start (or the query) instead of hanging it.
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 10_000 });
  // An idle connection the server dropped must not crash the process; the pool makes a new one.
  pool.on("error", () => {});
  await migrate(pool);
  const channel = await channelOf(pool);
  const scope = new AsyncLocalStorage<{ client: pg.PoolClient; savepoints: number }>();
  const names = new Map<string, string>();
  const statements = new Map<string, Statement>();
  let disposed = false;

  const query = (text: string, values: unknown[]) => {
    let name = names.get(text);
    if (!name) {
      name = `s${names.size + 1}`;
      names.set(text, name);
    }
    const tx = scope.getStore();
    return (tx ? tx.client : pool).query({ name, text, values });
  };
  const prepare = (sql: string): Statement => {
    const { text, slots } = translate(sql);
    return {
      get: async (...params) => (await query(text, bind(slots, params))).rows[0],
      all: async (...params) => (await query(text, bind(slots, params))).rows,
      run: async (...params) => ({ changes: (await query(text, bind(slots, params))).rowCount ?? 0 }),
    };
  };

  const store: PostgresStore = {
    dialect: "postgres",
    pool,
    get signals() {
      return signals;
    },
    dataDir,
    get open() {
      return !disposed;
    },
    sql(text) {
      let statement = statements.get(text);
      if (!statement) {
        statement = prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
    async tx(fn) {
      const outer = scope.getStore();
      if (outer) {
        const name = `sp${++outer.savepoints}`;
        await outer.client.query(`SAVEPOINT ${name}`);
        try {
          const result = await fn();
          await outer.client.query(`RELEASE SAVEPOINT ${name}`);
          return result;
        } catch (err) {
          await outer.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
          throw err;
        }
      }
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        try {
          await client.query("SELECT pg_advisory_xact_lock($1)", [WRITE_LOCK]);
          const result = await scope.run({ client, savepoints: 0 }, fn);
          await client.query("COMMIT");
          return result;
        } catch (err) {
          await client.query("ROLLBACK").catch(() => {});
          throw err;
        }
      } finally {
        client.release();
      }
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await signals.dispose();
      await pool.end();
    },
    [Symbol.asyncDispose]: () => store.dispose(),
  };
  const signals = postgresSignals({ url, channel, store });
  return store;
}

/** Each migration in its own transaction, under an advisory lock: a second server waits, then skips. */
async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    for (let version = 0; version < PG_MIGRATIONS.length; version++) {
      await client.query("BEGIN");
      try {
        await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
        await client.query("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
        const row = (await client.query("SELECT max(version) AS version FROM schema_version")).rows[0] as {
          version: number | null;
        };
        if ((row.version ?? 0) <= version) {
          await client.query(PG_MIGRATIONS[version] as string);
          await client.query("INSERT INTO schema_version (version) VALUES ($1)", [version + 1]);
        }
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      }
    }
  } finally {
    client.release();
  }
}
