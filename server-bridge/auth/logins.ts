/**
 * Browser logins: `/?token=...` trades the admin token for a server-side login id held in an HttpOnly,
 * SameSite=Strict cookie. The cookie never holds the token itself.
 */
import { randomBytes } from "node:crypto";
import type { Store } from "../store/db.ts";

export const COOKIE_NAME = "nt_login";
const LOGIN_TTL_MS = 30 * 24 * 3600_000;

export class Logins {
  readonly #ended = new Set<(loginId: string) => void>();

  constructor(private readonly store: Store) {}

  /** Signs a browser out: the login stops working at once, and listeners close what it holds open. */
  async end(loginId: string): Promise<void> {
    await this.store.sql("DELETE FROM logins WHERE id = ?").run(loginId);
    for (const listener of this.#ended) listener(loginId);
  }

  /** Told of every login that `end` ended (the socket server closes that login's sockets). */
  onEnded(listener: (loginId: string) => void): () => void {
    this.#ended.add(listener);
    return () => this.#ended.delete(listener);
  }

  async create(userId: string): Promise<string> {
    const id = randomBytes(32).toString("base64url");
    const at = Date.now();
    await this.store
      .sql("INSERT INTO logins (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)")
      .run(id, userId, at, at + LOGIN_TTL_MS);
    return id;
  }

  async userOf(loginId: string): Promise<string | undefined> {
    const row = (await this.store.sql("SELECT user_id, expires_at FROM logins WHERE id = ?").get(loginId)) as
      | { user_id: string; expires_at: number }
      | undefined;
    return row && row.expires_at > Date.now() ? row.user_id : undefined;
  }

  /** The login cookie's header; with no login, the one that drops it (signed out, expired). */
  cookie(loginId: string | undefined, secure: boolean): string {
    const parts = [
      `${COOKIE_NAME}=${loginId ?? ""}`,
      "Path=/",
      "HttpOnly",
      "SameSite=Strict",
      `Max-Age=${loginId === undefined ? 0 : LOGIN_TTL_MS / 1000}`,
    ];
    if (secure) parts.push("Secure");
    return parts.join("; ");
  }
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
