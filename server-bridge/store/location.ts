/**
 * Where the store lives, in words an operator can print: `postgres://user@host:5432/db` (the password
 * and the query string, which may carry one too, removed) or `SQLite <file>`. The banner, start-up
 * failures and the CLI's refusals name the store this way; nothing here ever prints a password.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SQLITE_FILE = "nodetool.sqlite";

/** In a `$DATA_DIR` whose store is in Postgres: says so, and where (no password). */
export const POSTGRES_MARKER = "postgres-store";

/** A command opened on the wrong store: a usage mistake the operator fixes (exit 2), nothing was created. */
export class WrongStore extends Error {
  readonly exitCode = 2;
}

/** Records in `dataDir` that its store lives in Postgres (written when a process opens one there). */
export function markPostgres(dataDir: string, databaseUrl: string): void {
  const path = join(dataDir, POSTGRES_MARKER);
  const text = `${redactUrl(databaseUrl)}\n`;
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  writeFileSync(path, text, { mode: 0o600 });
}

/**
 * Refuses to open SQLite in a `dataDir` a Postgres server uses: without `DATABASE_URL` a command would
 * quietly make a second, empty store there (tokens the server never heard of, a fresh token file).
 */
export function refuseSqliteOnPostgres(dataDir: string): void {
  const path = join(dataDir, POSTGRES_MARKER);
  if (!existsSync(path)) return;
  const where = readFileSync(path, "utf8").trim() || "Postgres";
  throw new WrongStore(
    `DATA_DIR ${dataDir} belongs to a server whose store is in Postgres (${where}), but DATABASE_URL is not set, ` +
      "so this would open a separate SQLite store. Set DATABASE_URL to the server's (the same URL it was started with). " +
      `To move this DATA_DIR to SQLite on purpose, delete ${path}.`,
  );
}

/** `postgres://user@host:port/db`: the URL without its password, query or fragment. */
export function redactUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    url.password = "";
    url.search = "";
    url.hash = "";
    return url.toString();
  } catch {
    // Not a URL `new URL` reads (an unescaped character in the password, say): keep only scheme and host.
    const scheme = /^[a-z]+:\/\//i.exec(databaseUrl)?.[0] ?? "";
    const host = databaseUrl.slice(scheme.length).split("@").pop()?.split(/[/?#]/)[0] ?? "";
    return `${scheme}${host}`;
  }
}

export function storeLabel(dataDir: string, databaseUrl: string | undefined): string {
  return databaseUrl ? redactUrl(databaseUrl) : `SQLite ${join(dataDir, SQLITE_FILE)}`;
}

/**
 * The store could not be opened at start: the message names the setting to check and where the store
 * was looked for, and carries the driver's reason with any password cut out of it.
 */
export function storeOpenFailed(dataDir: string, databaseUrl: string | undefined, err: unknown): Error {
  const password = databaseUrl ? passwordOf(databaseUrl) : "";
  let reason = err instanceof Error ? err.message : String(err);
  // Node reports a refused connection to a name with several addresses as an AggregateError without a message.
  if (!reason && err instanceof Error && "code" in err && typeof err.code === "string") reason = err.code;
  if (password) reason = reason.split(password).join("***");
  reason = reason.replace(/\.$/, "") || "the connection failed";
  return databaseUrl
    ? new Error(
        `Could not open the Postgres store at DATABASE_URL (${redactUrl(databaseUrl)}): ${reason}. Check DATABASE_URL.`,
        { cause: err },
      )
    : new Error(`Could not open the SQLite store at ${join(dataDir, SQLITE_FILE)}: ${reason}. Check DATA_DIR.`, {
        cause: err,
      });
}

function passwordOf(databaseUrl: string): string {
  try {
    return decodeURIComponent(new URL(databaseUrl).password);
  } catch {
    return /^[a-z]+:\/\/[^:/@]*:([^@]*)@/i.exec(databaseUrl)?.[1] ?? "";
  }
}
