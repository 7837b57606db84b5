/**
 * The test store when the suite runs on Postgres (`DATABASE_URL` set, as CI's second pass does): each
 * data directory gets its own schema in that database, named after the directory, so every test
 * server starts empty, a restart on the same directory finds its rows, and a second process opened on
 * the directory (as the CLI would) shares them. Unset, every store is SQLite in its directory.
 */
import { createHash } from "node:crypto";
import pg from "pg";

const admin = process.env.DATABASE_URL || undefined;

function schemaOf(dataDir: string): string {
  return `t_${createHash("sha256").update(dataDir).digest("hex").slice(0, 16)}`;
}

/** Runs `fn` on a connection of its own to the test database (as any role could: NOTIFY, terminate). */
export async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The DATABASE_URL for a store over `dataDir` (its schema made if new), or undefined on SQLite. */
export async function databaseFor(dataDir: string): Promise<string | undefined> {
  if (!admin) return undefined;
  const schema = schemaOf(dataDir);
  await withAdmin((client) => client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`));
  const url = new URL(admin);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return url.toString();
}

/** Drops the schema of `dataDir` (its test is over). */
export async function dropDatabaseFor(dataDir: string): Promise<void> {
  if (!admin) return;
  await withAdmin((client) => client.query(`DROP SCHEMA IF EXISTS ${schemaOf(dataDir)} CASCADE`));
}

/** What a child process on `dataDir` needs in its environment to open the same store. */
export async function storeEnv(dataDir: string): Promise<{ DATA_DIR: string; DATABASE_URL: string }> {
  return { DATA_DIR: dataDir, DATABASE_URL: (await databaseFor(dataDir)) ?? "" };
}

/** What `configFromEnv` needs to open the same store as a server on `dataDir` (another process's view). */
export async function storeConfig(dataDir: string): Promise<{ dataDir: string; databaseUrl: string | undefined }> {
  return { dataDir, databaseUrl: await databaseFor(dataDir) };
}
