/**
 * API tokens: named, per user, for scripts and agents (`token add --name ci`). One opens the API
 * (`/trpc`, `/assets`) as a bearer token and nothing else: it cannot sign a browser in, so it can
 * never answer an approval or change a mode. The token is returned once, by `add`; the store keeps
 * its hash. Revoking deletes the row, so the next request with it is refused.
 */
import { CodedError } from "../../shared/protocol/errors.ts";
import type { Store } from "../store/db.ts";
import { hashToken, newToken } from "./tokens.ts";

/** API tokens start with this, so they are recognisable in a config file or a secret scanner. */
export const API_TOKEN_PREFIX = "ntapi_";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface ApiTokenInfo {
  name: string;
  created_at: string;
}

export class ApiTokens {
  constructor(private readonly store: Store) {}

  async add(userId: string, name: string): Promise<{ name: string; token: string }> {
    if (!NAME.test(name)) {
      throw new CodedError({
        code: "invalid_call",
        message: `"${name}" is not a token name: use up to 64 letters, digits, dots, dashes or underscores.`,
      });
    }
    const token = newToken(API_TOKEN_PREFIX);
    const taken = await this.store.sql("SELECT 1 FROM api_tokens WHERE user_id = ? AND name = ?").get(userId, name);
    if (taken) {
      throw new CodedError({
        code: "invalid_call",
        message: `There is already an API token named "${name}"; revoke it first or choose another name.`,
      });
    }
    await this.store
      .sql("INSERT INTO api_tokens (token_hash, user_id, scope, name, created_at) VALUES (?, ?, 'api', ?, ?)")
      .run(hashToken(token), userId, name, Date.now());
    return { name, token };
  }

  async list(userId: string): Promise<ApiTokenInfo[]> {
    const rows = (await this.store
      .sql("SELECT name, created_at FROM api_tokens WHERE user_id = ? AND scope = 'api' ORDER BY created_at, name")
      .all(userId)) as { name: string; created_at: number }[];
    return rows.map((row) => ({ name: row.name, created_at: new Date(row.created_at).toISOString() }));
  }

  /** True when a token of that name existed (and is now gone). */
  async revoke(userId: string, name: string): Promise<boolean> {
    return (
      (
        await this.store
          .sql("DELETE FROM api_tokens WHERE user_id = ? AND scope = 'api' AND name = ?")
          .run(userId, name)
      ).changes > 0
    );
  }
}
