/**
 * Agent sessions: mode, allow-set, mounted modules and packs, per user, in the store. The gate's reads
 * (mode, allow-set) go to the store once per event-loop turn: the calls of one batch share them, and
 * the next turn reads again, so several processes sharing one $DATA_DIR stay consistent. Every write
 * this process makes drops what the turn had read.
 */
import { MODULE_NAMES } from "../../shared/capabilities/table.ts";
import type { Mode } from "../../shared/capabilities/types.ts";
import type { AllowSet } from "../../shared/gate/approvals.ts";
import { newId } from "../../shared/gate/approvals.ts";
import { CodedError } from "../../shared/protocol/errors.ts";
import type { Store } from "../store/db.ts";
import type { EventBus } from "./events.ts";

export interface SessionRow {
  id: string;
  user_id: string;
  mode: Mode;
  allow_set: string;
  modules: string;
  packs: string;
  /** The widget whose iframe created it (only that widget's credentials may touch it), or null. */
  widget_id: string | null;
  /**
   * Who is asked its approvals when that is not its own page: `script` (a script made it through the
   * API: every signed-in page of its user shows them), or null.
   */
  asker: "script" | null;
}

export interface SessionView {
  sessionId: string;
  mode: Mode;
  modules: string[];
  packs: string[];
}

function view(row: SessionRow): SessionView {
  return { sessionId: row.id, mode: row.mode, modules: JSON.parse(row.modules), packs: JSON.parse(row.packs) };
}

export class Sessions {
  /** Reads made in this event-loop turn, by kind and session id; cleared when the turn ends. */
  readonly #turn = new Map<string, unknown>();

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly knownPacks: readonly string[],
  ) {}

  async create(
    userId: string,
    input: {
      mode?: Mode | undefined;
      modules?: string[] | undefined;
      packs?: string[] | undefined;
      widgetId?: string | undefined;
      asker?: "script" | undefined;
    },
  ): Promise<SessionView> {
    const modules = input.modules ?? [...MODULE_NAMES];
    const unknownModule = modules.find((m) => !MODULE_NAMES.includes(m));
    if (unknownModule) {
      throw new CodedError({
        code: "unknown_module",
        message: `There is no capability module "${unknownModule}". Available: ${MODULE_NAMES.join(", ")}.`,
      });
    }
    // The first-party packs are pure functions over data: allowed unless the caller narrows them.
    const packs = input.packs ?? [...this.knownPacks];
    const unknownPack = packs.find((p) => !this.knownPacks.includes(p));
    if (unknownPack) {
      throw new CodedError({
        code: "unknown_module",
        message: `There is no library pack "${unknownPack}". Available: ${this.knownPacks.join(", ") || "none"}.`,
      });
    }
    const row: SessionRow = {
      id: newId("ses"),
      user_id: userId,
      mode: input.mode ?? "default",
      allow_set: "[]",
      modules: JSON.stringify([...new Set(modules)]),
      packs: JSON.stringify([...new Set(packs)]),
      widget_id: input.widgetId ?? null,
      asker: input.asker ?? null,
    };
    await this.store
      .sql(
        "INSERT INTO sessions (id, user_id, mode, allow_set, modules, packs, widget_id, asker, created_at) VALUES (@id, @user_id, @mode, @allow_set, @modules, @packs, @widget_id, @asker, ?)",
      )
      .run(row, Date.now());
    return view(row);
  }

  /** The session if it is this user's; `unauthorized` otherwise (an unknown id looks the same). */
  async require(userId: string, sessionId: string): Promise<SessionRow> {
    const row = (await this.store.sql("SELECT * FROM sessions WHERE id = ?").get(sessionId)) as SessionRow | undefined;
    if (!row || row.user_id !== userId) {
      throw new CodedError({ code: "unauthorized", message: `Session "${sessionId}" does not exist or is not yours.` });
    }
    return row;
  }

  async view(userId: string, sessionId: string): Promise<SessionView> {
    return view(await this.require(userId, sessionId));
  }

  /** `load()` once per event-loop turn for this key (the promise is shared). */
  #inTurn<T>(key: string, load: () => T): T {
    if (this.#turn.has(key)) return this.#turn.get(key) as T;
    const value = load();
    if (this.#turn.size === 0) setImmediate(() => this.#turn.clear());
    this.#turn.set(key, value);
    return value;
  }

  mode(sessionId: string): Promise<Mode> {
    return this.#inTurn(`mode:${sessionId}`, async () => {
      const row = (await this.store.sql("SELECT mode FROM sessions WHERE id = ?").get(sessionId)) as
        | { mode: Mode }
        | undefined;
      return row?.mode ?? "default";
    });
  }

  async setMode(userId: string, sessionId: string, mode: Mode): Promise<SessionView> {
    await this.require(userId, sessionId);
    this.#turn.clear();
    await this.store.sql("UPDATE sessions SET mode = ? WHERE id = ?").run(mode, sessionId);
    this.bus.publish(sessionId, { type: "mode_changed", mode });
    return this.view(userId, sessionId);
  }

  async allowed(sessionId: string): Promise<string[]> {
    return [...(await this.#allowedInTurn(sessionId))];
  }

  #allowedInTurn(sessionId: string): Promise<readonly string[]> {
    return this.#inTurn(`allowed:${sessionId}`, () => this.#allowedNow(sessionId));
  }

  async #allowedNow(sessionId: string): Promise<string[]> {
    const row = (await this.store.sql("SELECT allow_set FROM sessions WHERE id = ?").get(sessionId)) as
      | { allow_set: string }
      | undefined;
    return row ? (JSON.parse(row.allow_set) as string[]) : [];
  }

  /** Removes one name (or all when `capability` is absent) from the allow-set; returns what remains. */
  async revoke(userId: string, sessionId: string, capability?: string): Promise<string[]> {
    await this.require(userId, sessionId);
    this.#turn.clear();
    const remaining = await this.store.tx(async () => {
      const next = capability === undefined ? [] : (await this.#allowedNow(sessionId)).filter((n) => n !== capability);
      await this.store.sql("UPDATE sessions SET allow_set = ? WHERE id = ?").run(JSON.stringify(next), sessionId);
      return next;
    });
    this.bus.publish(sessionId, { type: "allow_set_changed", allowed: remaining });
    return remaining;
  }

  allowSet(sessionId: string): AllowSet {
    return {
      has: async (name) => (await this.#allowedInTurn(sessionId)).includes(name),
      add: async (name) => {
        this.#turn.clear();
        const next = await this.store.tx(async () => {
          const current = await this.#allowedNow(sessionId);
          if (current.includes(name)) return current;
          const updated = [...current, name].sort();
          await this.store
            .sql("UPDATE sessions SET allow_set = ? WHERE id = ?")
            .run(JSON.stringify(updated), sessionId);
          return updated;
        });
        this.bus.publish(sessionId, { type: "allow_set_changed", allowed: next });
      },
    };
  }
}
