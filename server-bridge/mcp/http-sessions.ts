/**
 * The table of live Streamable HTTP sessions, per user. Clients that never send DELETE (the SDK
 * client and the Inspector among them) leave sessions behind, so the cap is per user, and a user at
 * the cap gets their least recently used idle session closed to make room; only when every one of
 * theirs is busy is their new one refused. A session is busy while a POST on it is unanswered (a
 * tool call, an elicitation's reply); an open GET event stream alone does not make it busy. Idle
 * sessions are closed after `idleMs` without a request.
 */
import type { ServerResponse } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Caller } from "../auth/caller.ts";
import type { McpSessionServer } from "./server.ts";

export interface SessionEntry {
  caller: Caller;
  session: McpSessionServer;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
  /** POSTs on this session whose answer has not finished. */
  busy: number;
}

export class HttpSessions {
  readonly #entries = new Map<string, SessionEntry>();
  readonly #sweep: ReturnType<typeof setInterval>;

  constructor(private readonly limits: { perUser: number; idleMs: number }) {
    this.#sweep = setInterval(() => this.sweep(), Math.max(1_000, Math.min(60_000, Math.floor(limits.idleMs / 4))));
    this.#sweep.unref();
  }

  get size(): number {
    return this.#entries.size;
  }

  countOf(user: string): number {
    let n = 0;
    for (const entry of this.#entries.values()) if (entry.caller.user === user) n++;
    return n;
  }

  /** The session if it is this user's (someone else's looks exactly like one that never existed). */
  get(id: string, user: string): SessionEntry | undefined {
    const entry = this.#entries.get(id);
    return entry?.caller.user === user ? entry : undefined;
  }

  has(id: string): boolean {
    return this.#entries.has(id);
  }

  add(id: string, entry: Omit<SessionEntry, "lastSeen" | "busy">): void {
    this.#entries.set(id, { ...entry, lastSeen: Date.now(), busy: 0 });
  }

  /**
   * Makes room for one more session of `user`: at the cap, closes their least recently used idle
   * session. False when every one of theirs is busy.
   */
  makeRoom(user: string): boolean {
    if (this.countOf(user) < this.limits.perUser) return true;
    let oldest: [string, SessionEntry] | undefined;
    for (const item of this.#entries) {
      const [, entry] = item;
      if (entry.caller.user !== user || entry.busy > 0) continue;
      if (!oldest || entry.lastSeen < oldest[1].lastSeen) oldest = item;
    }
    if (!oldest) return false;
    this.drop(oldest[0]);
    return true;
  }

  /** Marks a request on the session: seen now, and busy until a POST's answer has finished. */
  seen(entry: SessionEntry, method: string, res: ServerResponse): void {
    entry.lastSeen = Date.now();
    if (method !== "POST") return;
    entry.busy++;
    res.once("close", () => {
      entry.busy--;
      entry.lastSeen = Date.now();
    });
  }

  /** Forgets a session and closes its server (safe for an id already gone). */
  drop(id: string): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#entries.delete(id);
    void entry.session.close();
  }

  /** Forgets a session whose server closed by itself (nothing left to close). */
  forget(id: string): void {
    this.#entries.delete(id);
  }

  sweep(now = Date.now()): void {
    const cutoff = now - this.limits.idleMs;
    for (const [id, entry] of this.#entries) if (entry.busy === 0 && entry.lastSeen < cutoff) this.drop(id);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep);
    const open = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(open.map((entry) => entry.session.close()));
  }
}
