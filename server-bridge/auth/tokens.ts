/**
 * Credentials (DESIGN.md section 8a). Three scopes: the admin token (browser login and API scripts),
 * API tokens (the API only: they can never sign a browser in), and the MCP token (`/mcp` only). The
 * local user's admin and MCP tokens come from AUTH_TOKEN / MCP_TOKEN or are generated into $DATA_DIR
 * (mode 0600). Every other token is stored only as its SHA-256 hash and shown once, when made.
 * Comparisons are constant-time (the local tokens) or by hash (the stored ones).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CodedError } from "../../shared/protocol/errors.ts";
import type { Store } from "../store/db.ts";

export const LOCAL_USER = "local";
export type Scope = "admin" | "api" | "mcp";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function newToken(prefix = ""): string {
  return `${prefix}${randomBytes(24).toString("base64url")}`;
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
  /** Whose token this is and in which scope, or undefined for a token nobody holds. */
  identify(token: string): Promise<{ user: string; scope: Scope } | undefined>;
  /**
   * Adds a user with their own admin and MCP tokens (each returned once here, stored hashed). A name
   * that is blank, too long or already a user's is refused (`invalid_call`).
   */
  addUser(name: string): Promise<{ userId: string; token: string; mcpToken: string }>;
  /** Every user, oldest first: ids (what `--user` takes), names and when each was added. */
  listUsers(): Promise<{ userId: string; name: string; createdAt: string }[]>;
  /** A user's name (undefined for an id nobody has). */
  nameOf(userId: string): Promise<string | undefined>;
}

const MAX_USER_NAME = 100;

function refuseName(message: string): never {
  throw new CodedError({ code: "invalid_call", message });
}

export async function loadCredentials(
  store: Store,
  env: { AUTH_TOKEN?: string | undefined; MCP_TOKEN?: string | undefined },
): Promise<Credentials> {
  const adminToken = fileToken(store.dataDir, "token", env.AUTH_TOKEN);
  const mcpToken = fileToken(store.dataDir, "mcp-token", env.MCP_TOKEN);
  await store
    .sql("INSERT INTO users (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
    .run(LOCAL_USER, "Local user", Date.now());
  const local: [Scope, Buffer][] = [
    ["admin", Buffer.from(hashToken(adminToken), "hex")],
    ["mcp", Buffer.from(hashToken(mcpToken), "hex")],
  ];
  const insert = store.sql("INSERT INTO api_tokens (token_hash, user_id, scope, created_at) VALUES (?, ?, ?, ?)");
  return {
    adminToken,
    mcpToken,
    async identify(token) {
      if (!token || token.length > 512) return undefined;
      const hash = Buffer.from(hashToken(token), "hex");
      let found: Scope | undefined;
      // Both are compared, whichever matches: the time taken says nothing about which one it was.
      for (const [scope, expected] of local) if (timingSafeEqual(hash, expected)) found = scope;
      if (found) return { user: LOCAL_USER, scope: found };
      // Lookup by hash: the secret itself is never compared byte by byte.
      const row = (await store
        .sql("SELECT user_id, scope FROM api_tokens WHERE token_hash = ?")
        .get(hash.toString("hex"))) as { user_id: string; scope: Scope } | undefined;
      return row ? { user: row.user_id, scope: row.scope } : undefined;
    },
    async addUser(given) {
      const name = given.trim();
      // biome-ignore lint/suspicious/noControlCharactersInRegex: a name with control characters is refused
      if (!name || name.length > MAX_USER_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
        refuseName(`A user's name is 1 to ${MAX_USER_NAME} printable characters.`);
      }
      const userId = `user_${randomBytes(6).toString("hex")}`;
      const token = newToken();
      const userMcpToken = newToken();
      await store.tx(async () => {
        const taken = (await store.sql("SELECT id FROM users WHERE lower(name) = lower(?)").get(name)) as
          | { id: string }
          | undefined;
        if (taken) refuseName(`There is already a user named "${name}" (${taken.id}); \`user list\` shows them.`);
        const at = Date.now();
        await store.sql("INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)").run(userId, name, at);
        await insert.run(hashToken(token), userId, "admin", at);
        await insert.run(hashToken(userMcpToken), userId, "mcp", at);
      });
      return { userId, token, mcpToken: userMcpToken };
    },
    async nameOf(userId) {
      const row = (await store.sql("SELECT name FROM users WHERE id = ?").get(userId)) as { name: string } | undefined;
      return row?.name;
    },
    async listUsers() {
      const rows = (await store.sql("SELECT id, name, created_at FROM users ORDER BY created_at, id").all()) as {
        id: string;
        name: string;
        created_at: number;
      }[];
      return rows.map((row) => ({
        userId: row.id,
        name: row.name,
        createdAt: new Date(Number(row.created_at)).toISOString(),
      }));
    },
  };
}
