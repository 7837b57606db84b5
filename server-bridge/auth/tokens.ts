/**
 * Credentials (DESIGN.md section 8a). Two scopes: the admin token (browser login and API scripts) and
 * the MCP token (`/mcp` only). The local user's tokens come from AUTH_TOKEN / MCP_TOKEN or are
 * generated into $DATA_DIR (mode 0600). Further users get tokens stored only as SHA-256 hashes.
 * Every comparison is constant-time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "../store/db.ts";

export const LOCAL_USER = "local";
export type Scope = "admin" | "mcp";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function newToken(): string {
  return randomBytes(24).toString("base64url");
}

function fileToken(dataDir: string, name: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const path = join(dataDir, name);
  if (existsSync(path)) {
    const token = readFileSync(path, "utf8").trim();
    if (token) return token;
  }
  const token = newToken();
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: "w" });
  chmodSync(path, 0o600);
  return token;
}

export interface Credentials {
  adminToken: string;
  mcpToken: string;
  /** The user a bearer token (or login token) belongs to in `scope`, or undefined. */
  verify(token: string, scope: Scope): string | undefined;
  /** Adds a user and returns their new admin token (shown once, stored hashed). */
  addUser(name: string): { userId: string; token: string };
}

export function loadCredentials(
  store: Store,
  env: { AUTH_TOKEN?: string | undefined; MCP_TOKEN?: string | undefined },
): Credentials {
  const adminToken = fileToken(store.dataDir, "token", env.AUTH_TOKEN);
  const mcpToken = fileToken(store.dataDir, "mcp-token", env.MCP_TOKEN);
  store
    .sql("INSERT OR IGNORE INTO users (id, name, created_at) VALUES (?, ?, ?)")
    .run(LOCAL_USER, "Local user", Date.now());
  const local: Record<Scope, Buffer> = {
    admin: Buffer.from(hashToken(adminToken), "hex"),
    mcp: Buffer.from(hashToken(mcpToken), "hex"),
  };
  return {
    adminToken,
    mcpToken,
    verify(token, scope) {
      if (!token || token.length > 512) return undefined;
      const hash = Buffer.from(hashToken(token), "hex");
      if (timingSafeEqual(hash, local[scope])) return LOCAL_USER;
      // Lookup by hash: the secret itself is never compared byte by byte.
      const row = store
        .sql("SELECT user_id FROM api_tokens WHERE token_hash = ? AND scope = ?")
        .get(hash.toString("hex"), scope) as { user_id: string } | undefined;
      return row?.user_id;
    },
    addUser(name) {
      const userId = `user_${randomBytes(6).toString("hex")}`;
      const token = newToken();
      store.tx(() => {
        store.sql("INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)").run(userId, name, Date.now());
        store
          .sql("INSERT INTO api_tokens (token_hash, user_id, scope, created_at) VALUES (?, ?, 'admin', ?)")
          .run(hashToken(token), userId, Date.now());
      });
      return { userId, token };
    },
  };
}
