/**
 * Widgets in the store (DESIGN.md section 8a): registration, the mint key, the short-lived widget
 * tokens minted with it, and the credentials the iframe exchanges them for. Every secret is returned
 * once and stored as its SHA-256 hash. A token works once and for minutes; a credential lives only in
 * the iframe's memory and for hours. Revoking a widget clears its mint key and deletes every token and
 * credential minted with it, so the next request with any of them is refused.
 *
 * All of the widget's store access is in this file, as plain SQL (the store becomes asynchronous in
 * issue 19: this is the one place to convert).
 */
import { randomBytes } from "node:crypto";
import type { Mode } from "../../shared/capabilities/types.ts";
import { CodedError } from "../../shared/protocol/errors.ts";
import type { Dialect, Store } from "../store/db.ts";
import { hashToken, newToken } from "./tokens.ts";
import {
  parseLimit,
  parseMode,
  parseModules,
  parseOrigins,
  WIDGET_DEFAULTS,
  type WidgetPolicy,
} from "./widget-policy.ts";

export const MINT_KEY_PREFIX = "ntwm_";
export const WIDGET_TOKEN_PREFIX = "ntwt_";
export const CREDENTIAL_PREFIX = "ntwc_";

/** How long a minted token lives unless the minting server asks for less (or a little more). */
export const TOKEN_TTL_MS = { default: 5 * 60_000, min: 10_000, max: 15 * 60_000 } as const;
/** How long an exchanged credential authenticates the iframe. */
export const CREDENTIAL_TTL_MS = 8 * 3600_000;
/** Spent and expired tokens are kept this long (so a late exchange is told why), then deleted. */
const KEEP_SPENT_MS = 24 * 3600_000;

export interface WidgetInfo extends WidgetPolicy {
  ownerId: string;
  createdAt: string;
  revokedAt?: string | undefined;
}

export interface AddWidget {
  origins: readonly string[];
  modules?: readonly string[] | undefined;
  maxMode?: string | undefined;
  maxActions?: number | undefined;
  callsPerMinute?: number | undefined;
  /**
   * Act as the owner (their workflows, assets, memories and conversations) instead of a user made for
   * the widget alone, the default.
   */
  actAsOwner?: boolean | undefined;
}

interface WidgetRow {
  id: string;
  owner_id: string;
  user_id: string;
  origins: string;
  modules: string;
  max_mode: Mode;
  max_actions: number;
  calls_per_minute: number;
  created_at: number;
  revoked_at: number | null;
}

function policyOf(row: WidgetRow): WidgetPolicy {
  return {
    id: row.id,
    userId: row.user_id,
    origins: JSON.parse(row.origins) as string[],
    modules: JSON.parse(row.modules) as string[],
    maxMode: row.max_mode,
    maxActions: row.max_actions,
    callsPerMinute: row.calls_per_minute,
  };
}

function infoOf(row: WidgetRow): WidgetInfo {
  return {
    ...policyOf(row),
    ownerId: row.owner_id,
    createdAt: new Date(row.created_at).toISOString(),
    ...(row.revoked_at === null ? {} : { revokedAt: new Date(row.revoked_at).toISOString() }),
  };
}

function unauthorized(message: string): CodedError {
  return new CodedError({ code: "unauthorized", message });
}

const WIDGET_COLUMNS =
  "w.id, w.owner_id, w.user_id, w.origins, w.modules, w.max_mode, w.max_actions, w.calls_per_minute, w.created_at, w.revoked_at";

/** The ids of a JSON array bound as one parameter, as a subquery. */
const IDS: Record<Dialect, string> = {
  sqlite: "(SELECT value FROM json_each(?))",
  postgres: "(SELECT json_array_elements_text(CAST(? AS json)))",
};

export class Widgets {
  readonly #revoked = new Set<(widgetId: string) => void>();

  constructor(private readonly store: Store) {}

  /**
   * Told of every widget revoked (by this process, or found revoked by another one: `announceRevoked`);
   * the socket server closes its sockets, the runs end.
   */
  onRevoked(listener: (widgetId: string) => void): () => void {
    this.#revoked.add(listener);
    return () => this.#revoked.delete(listener);
  }

  /** Tells the listeners that a widget is revoked (a CLI in another process revoked it in the store). */
  announceRevoked(widgetId: string): void {
    for (const listener of this.#revoked) listener(widgetId);
  }

  /** Registers a widget; the mint key is in the answer only. */
  async add(ownerId: string, input: AddWidget): Promise<{ widget: WidgetInfo; mintKey: string }> {
    const origins = parseOrigins(input.origins);
    const modules = parseModules(input.modules);
    const maxMode = parseMode(input.maxMode ?? WIDGET_DEFAULTS.maxMode);
    const maxActions = parseLimit(input.maxActions ?? WIDGET_DEFAULTS.maxActions, "--max-actions");
    const callsPerMinute = parseLimit(input.callsPerMinute ?? WIDGET_DEFAULTS.callsPerMinute, "--calls-per-minute");
    const id = `wgt_${randomBytes(9).toString("base64url")}`;
    const mintKey = newToken(MINT_KEY_PREFIX);
    const at = Date.now();
    await this.store.tx(async () => {
      let userId = ownerId;
      if (!input.actAsOwner) {
        // The default: a user of its own, so its visitors never see the owner's workflows, assets or memories.
        userId = `wuser_${randomBytes(6).toString("hex")}`;
        await this.store
          .sql("INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)")
          .run(userId, `widget ${id}`, at);
      }
      await this.store
        .sql(
          `INSERT INTO widgets (id, owner_id, user_id, origins, modules, max_mode, max_actions, calls_per_minute, mint_key_hash, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          ownerId,
          userId,
          JSON.stringify(origins),
          JSON.stringify(modules),
          maxMode,
          maxActions,
          callsPerMinute,
          hashToken(mintKey),
          at,
        );
    });
    return { widget: (await this.#info(id)) as WidgetInfo, mintKey };
  }

  async #info(id: string): Promise<WidgetInfo | undefined> {
    const row = (await this.store.sql(`SELECT ${WIDGET_COLUMNS} FROM widgets w WHERE w.id = ?`).get(id)) as
      | WidgetRow
      | undefined;
    return row ? infoOf(row) : undefined;
  }

  async list(ownerId: string): Promise<WidgetInfo[]> {
    const rows = (await this.store
      .sql(`SELECT ${WIDGET_COLUMNS} FROM widgets w WHERE w.owner_id = ? ORDER BY w.created_at, w.id`)
      .all(ownerId)) as WidgetRow[];
    return rows.map(infoOf);
  }

  /** The policy of a widget that is not revoked (what `/embed?w=` serves and every credential acts under). */
  async live(id: string): Promise<WidgetPolicy | undefined> {
    const row = (await this.store
      .sql(`SELECT ${WIDGET_COLUMNS} FROM widgets w WHERE w.id = ? AND w.revoked_at IS NULL`)
      .get(id)) as WidgetRow | undefined;
    return row ? policyOf(row) : undefined;
  }

  /** Revokes one of the owner's widgets: its mint key, tokens and credentials stop working at once. */
  async revoke(ownerId: string, id: string): Promise<boolean> {
    const revoked = await this.store.tx(async () => {
      const changed = (
        await this.store
          .sql(
            "UPDATE widgets SET revoked_at = ?, mint_key_hash = NULL WHERE id = ? AND owner_id = ? AND revoked_at IS NULL",
          )
          .run(Date.now(), id, ownerId)
      ).changes;
      if (changed === 0) return false;
      await this.store.sql("DELETE FROM widget_tokens WHERE widget_id = ?").run(id);
      await this.store.sql("DELETE FROM widget_credentials WHERE widget_id = ?").run(id);
      return true;
    });
    if (revoked) this.announceRevoked(id);
    return revoked;
  }

  /** `POST /embed/token`: a single-use token for one visitor, minted with the widget's mint key. */
  async mint(
    mintKey: string,
    ttlMs: number = TOKEN_TTL_MS.default,
  ): Promise<{ token: string; widget_id: string; expires_at: string }> {
    const row =
      mintKey.startsWith(MINT_KEY_PREFIX) && mintKey.length < 200
        ? ((await this.store
            .sql("SELECT id FROM widgets WHERE mint_key_hash = ? AND revoked_at IS NULL")
            .get(hashToken(mintKey))) as { id: string } | undefined)
        : undefined;
    if (!row) throw unauthorized("That mint key is not valid: it was never issued here, or its widget was revoked.");
    const ttl = Math.min(TOKEN_TTL_MS.max, Math.max(TOKEN_TTL_MS.min, ttlMs));
    const token = newToken(WIDGET_TOKEN_PREFIX);
    const at = Date.now();
    await this.store.tx(async () => {
      await this.store.sql("DELETE FROM widget_tokens WHERE expires_at < ?").run(at - KEEP_SPENT_MS);
      await this.store.sql("DELETE FROM widget_credentials WHERE expires_at < ?").run(at);
      await this.store
        .sql("INSERT INTO widget_tokens (token_hash, widget_id, created_at, expires_at) VALUES (?, ?, ?, ?)")
        .run(hashToken(token), row.id, at, at + ttl);
    });
    return { token, widget_id: row.id, expires_at: new Date(at + ttl).toISOString() };
  }

  /**
   * `POST /embed/session`: the iframe of widget `widgetId` trades a token, once, for a credential. A
   * spent, expired, unknown or foreign token is refused, and the message says which and what to do.
   */
  async exchange(
    widgetId: string,
    token: string,
  ): Promise<{ credential: string; credential_id: string; expires_at: string; widget: WidgetPolicy }> {
    const at = Date.now();
    const credential = newToken(CREDENTIAL_PREFIX);
    const credentialId = `wcr_${randomBytes(9).toString("base64url")}`;
    const widget = await this.store.tx(async () => {
      const row = (await this.store
        .sql("SELECT widget_id, expires_at, exchanged_at FROM widget_tokens WHERE token_hash = ?")
        .get(hashToken(token))) as { widget_id: string; expires_at: number; exchanged_at: number | null } | undefined;
      const policy = row ? await this.live(row.widget_id) : undefined;
      if (!row || !policy) {
        throw unauthorized(
          "This widget token is not valid: it was never minted here, or its widget was revoked. The host page must mint a new one.",
        );
      }
      if (row.widget_id !== widgetId) throw unauthorized("This widget token was minted for another widget.");
      if (row.exchanged_at !== null) {
        throw unauthorized(
          "This widget token was already used: a token opens one widget once. Reload the host page to get a new one.",
        );
      }
      if (row.expires_at <= at) {
        throw unauthorized(
          `This widget token expired at ${new Date(row.expires_at).toISOString()} (tokens live a few minutes). Reload the host page to get a new one.`,
        );
      }
      await this.store
        .sql("UPDATE widget_tokens SET exchanged_at = ? WHERE token_hash = ? AND exchanged_at IS NULL")
        .run(at, hashToken(token));
      await this.store
        .sql(
          "INSERT INTO widget_credentials (id, credential_hash, widget_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
        )
        .run(credentialId, hashToken(credential), widgetId, at, at + CREDENTIAL_TTL_MS);
      return policy;
    });
    return {
      credential,
      credential_id: credentialId,
      expires_at: new Date(at + CREDENTIAL_TTL_MS).toISOString(),
      widget,
    };
  }

  /** The widget and credential id a credential authenticates, or undefined (unknown, expired, revoked). */
  async identify(
    credential: string,
  ): Promise<{ widget: WidgetPolicy; credentialId: string; expiresAt: number } | undefined> {
    if (!credential.startsWith(CREDENTIAL_PREFIX) || credential.length > 200) return undefined;
    const row = (await this.store
      .sql(
        `SELECT c.id AS credential_id, c.expires_at AS credential_expires, ${WIDGET_COLUMNS}
         FROM widget_credentials c JOIN widgets w ON w.id = c.widget_id
         WHERE c.credential_hash = ? AND c.expires_at > ? AND w.revoked_at IS NULL`,
      )
      .get(hashToken(credential), Date.now())) as
      | (WidgetRow & { credential_id: string; credential_expires: number })
      | undefined;
    return row
      ? { widget: policyOf(row), credentialId: row.credential_id, expiresAt: row.credential_expires }
      : undefined;
  }

  /** Of these credential ids, the ones that still authenticate (the rest were revoked or expired). */
  async stillValid(credentialIds: readonly string[]): Promise<Set<string>> {
    if (credentialIds.length === 0) return new Set();
    const rows = (await this.store
      .sql(`SELECT id FROM widget_credentials WHERE id IN ${IDS[this.store.dialect]} AND expires_at > ?`)
      .all(JSON.stringify(credentialIds), Date.now())) as { id: string }[];
    return new Set(rows.map((row) => row.id));
  }

  /** Of these widget ids, the ones that were revoked. */
  async revokedAmong(widgetIds: readonly string[]): Promise<Set<string>> {
    if (widgetIds.length === 0) return new Set();
    const rows = (await this.store
      .sql(`SELECT id FROM widgets WHERE id IN ${IDS[this.store.dialect]} AND revoked_at IS NOT NULL`)
      .all(JSON.stringify(widgetIds))) as { id: string }[];
    return new Set(rows.map((row) => row.id));
  }

  /**
   * The widget a session, a run or an approval belongs to: `null` for one of no widget, undefined for
   * an id that does not exist. What a widget credential may touch is decided by this.
   */
  async ownerOf(kind: "sessionId" | "runId" | "approvalId", id: string): Promise<string | null | undefined> {
    const query = {
      sessionId: "SELECT widget_id FROM sessions WHERE id = ?",
      runId: "SELECT s.widget_id FROM runs r JOIN sessions s ON s.id = r.session_id WHERE r.id = ?",
      approvalId: "SELECT s.widget_id FROM approvals a JOIN sessions s ON s.id = a.session_id WHERE a.id = ?",
    }[kind];
    const row = (await this.store.sql(query).get(id)) as { widget_id: string | null } | undefined;
    return row ? row.widget_id : undefined;
  }
}
