/**
 * Conversation threads in the store, owned by their user: the thread list, rename, delete, and the
 * messages of each in order. A model turn is written as an interrupted assistant message when it
 * starts and completed when it ends, so a turn cut by a crash or a reload shows as interrupted, never
 * as if it had finished, and is never replayed silently. Why a request ended early is stored on its
 * last assistant message (`end`), so every read of the thread says it again.
 */
import { AgentMessage, type TokenUsage, type TurnEnd } from "../../shared/agent/messages.ts";
import { newId } from "../../shared/gate/approvals.ts";
import { CodedError, failure } from "../../shared/protocol/errors.ts";
import type { Store } from "../store/db.ts";

export interface ThreadView {
  id: string;
  title: string;
  model: string | null;
  usage: TokenUsage;
  created_at: string;
  updated_at: string;
}

export interface StoredMessage {
  seq: number;
  message: AgentMessage;
  usage: TokenUsage;
}

interface ThreadRow {
  id: string;
  user_id: string;
  title: string;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  created_at: number;
  updated_at: number;
}

const MAX_TITLE = 200;
/** Threads whose parsed messages are kept (a turn re-reads its whole thread; only changed rows are parsed again). */
const PARSED_THREADS = 64;

function view(row: ThreadRow): ThreadView {
  return {
    id: row.id,
    title: row.title,
    model: row.model,
    usage: { input_tokens: row.input_tokens, output_tokens: row.output_tokens },
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** A thread's title from its first request: the first line, trimmed and capped. */
export function titleOf(text: string): string {
  const line = text.trim().split("\n")[0]?.trim() ?? "";
  return (line.length > 80 ? `${line.slice(0, 79)}…` : line) || "New conversation";
}

export class ThreadStore {
  /** Per thread, the last parse of each stored message by seq, kept while its body is unchanged. Shared: read-only. */
  readonly #parsed = new Map<string, Map<number, { body: string; message: AgentMessage | undefined }>>();

  constructor(private readonly store: Store) {}

  async create(userId: string, title = "New conversation"): Promise<ThreadView> {
    const id = newId("thr");
    const at = Date.now();
    await this.store
      .sql("INSERT INTO agent_threads (id, user_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
      .run(id, userId, title.slice(0, MAX_TITLE), at, at);
    return this.require(userId, id);
  }

  async list(userId: string, limit = 100): Promise<ThreadView[]> {
    const rows = (await this.store
      .sql("SELECT * FROM agent_threads WHERE user_id = ? ORDER BY updated_at DESC, id LIMIT ?")
      .all(userId, limit)) as ThreadRow[];
    return rows.map(view);
  }

  async require(userId: string, threadId: string): Promise<ThreadView> {
    const row = (await this.store.sql("SELECT * FROM agent_threads WHERE id = ?").get(threadId)) as
      | ThreadRow
      | undefined;
    if (!row || row.user_id !== userId) {
      throw new CodedError(failure("unauthorized", `There is no conversation "${threadId}" of yours.`));
    }
    return view(row);
  }

  async rename(userId: string, threadId: string, title: string): Promise<ThreadView> {
    await this.require(userId, threadId);
    await this.store
      .sql("UPDATE agent_threads SET title = ?, updated_at = ? WHERE id = ?")
      .run(title.trim().slice(0, MAX_TITLE) || "Untitled", Date.now(), threadId);
    return this.require(userId, threadId);
  }

  async setModel(userId: string, threadId: string, model: string): Promise<void> {
    await this.require(userId, threadId);
    await this.store.sql("UPDATE agent_threads SET model = ? WHERE id = ?").run(model, threadId);
  }

  async delete(userId: string, threadId: string): Promise<void> {
    await this.require(userId, threadId);
    await this.store.tx(async () => {
      await this.store.sql("DELETE FROM agent_messages WHERE thread_id = ?").run(threadId);
      await this.store.sql("DELETE FROM agent_threads WHERE id = ?").run(threadId);
    });
    this.#parsed.delete(threadId);
  }

  async messages(userId: string, threadId: string): Promise<StoredMessage[]> {
    return this.messagesOf(await this.require(userId, threadId));
  }

  /**
   * The messages of a thread its owner was already checked for (`require` answered it). The rows are
   * read every time (another server may have written them); a row whose body is unchanged since the
   * last read is not parsed again, so a turn's re-read of a long thread costs its new messages only.
   */
  async messagesOf(thread: ThreadView): Promise<StoredMessage[]> {
    const rows = (await this.store
      .sql("SELECT seq, body, input_tokens, output_tokens FROM agent_messages WHERE thread_id = ? ORDER BY seq")
      .all(thread.id)) as { seq: number; body: string; input_tokens: number; output_tokens: number }[];
    const before = this.#parsed.get(thread.id);
    const now = new Map<number, { body: string; message: AgentMessage | undefined }>();
    const out: StoredMessage[] = [];
    for (const row of rows) {
      const known = before?.get(row.seq);
      const parsed =
        known && known.body === row.body
          ? known
          : { body: row.body, message: AgentMessage.safeParse(JSON.parse(row.body)).data };
      now.set(row.seq, parsed);
      if (!parsed.message) continue;
      out.push({
        seq: row.seq,
        message: parsed.message,
        usage: { input_tokens: row.input_tokens, output_tokens: row.output_tokens },
      });
    }
    this.#parsed.delete(thread.id);
    if (this.#parsed.size >= PARSED_THREADS) this.#parsed.delete(this.#parsed.keys().next().value as string);
    this.#parsed.set(thread.id, now);
    return out;
  }

  /** Appends messages at the end of the thread; answers the seq of each. */
  async append(threadId: string, messages: readonly AgentMessage[]): Promise<number[]> {
    return await this.store.tx(async () => {
      const last = (await this.store
        .sql("SELECT max(seq) AS n FROM agent_messages WHERE thread_id = ?")
        .get(threadId)) as {
        n: number | null;
      };
      let seq = last.n ?? 0;
      const at = Date.now();
      const seqs: number[] = [];
      for (const message of messages) {
        seq++;
        await this.store
          .sql("INSERT INTO agent_messages (thread_id, seq, body, created_at) VALUES (?, ?, ?, ?)")
          .run(threadId, seq, JSON.stringify(message), at);
        seqs.push(seq);
      }
      await this.store.sql("UPDATE agent_threads SET updated_at = ? WHERE id = ?").run(at, threadId);
      return seqs;
    });
  }

  /**
   * Records why the thread's latest request ended without a final answer, on its last assistant
   * message. Answers false when that request has no stored assistant message (it stopped before its
   * first model turn reached the server): there is nothing to say it on.
   */
  async end(userId: string, threadId: string, ended: TurnEnd): Promise<boolean> {
    const stored = await this.messages(userId, threadId);
    const last = stored.findLast((m) => m.message.role !== "tool");
    if (last?.message.role !== "assistant") return false;
    const message: AgentMessage = { ...last.message, ended };
    await this.store
      .sql("UPDATE agent_messages SET body = ? WHERE thread_id = ? AND seq = ?")
      .run(JSON.stringify(message), threadId, last.seq);
    return true;
  }

  /**
   * Replaces one message (a finished turn over its interrupted placeholder) and counts its tokens, in
   * its thread, in the parent thread it is charged to (a child agent's turn), and in the user's day.
   */
  async complete(
    userId: string,
    threadId: string,
    seq: number,
    message: AgentMessage,
    usage: TokenUsage,
    chargeTo?: string,
  ): Promise<void> {
    const tokens = usage.input_tokens + usage.output_tokens;
    await this.store.tx(async () => {
      await this.store
        .sql(
          "UPDATE agent_messages SET body = ?, input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE thread_id = ? AND seq = ?",
        )
        .run(JSON.stringify(message), usage.input_tokens, usage.output_tokens, threadId, seq);
      await this.store
        .sql(
          "UPDATE agent_threads SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, updated_at = ? WHERE id = ?",
        )
        .run(usage.input_tokens, usage.output_tokens, Date.now(), threadId);
      if (chargeTo) {
        await this.store
          .sql(
            "UPDATE agent_threads SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE id = ? AND user_id = ?",
          )
          .run(usage.input_tokens, usage.output_tokens, chargeTo, userId);
      }
      await this.store
        .sql(
          "INSERT INTO agent_usage (user_id, day, tokens) VALUES (?, ?, ?) ON CONFLICT (user_id, day) DO UPDATE SET tokens = agent_usage.tokens + excluded.tokens",
        )
        .run(userId, today(), tokens);
    });
  }

  /** Tokens this user used today (UTC), what the daily budget counts. */
  async usedToday(userId: string): Promise<number> {
    const row = (await this.store
      .sql("SELECT tokens FROM agent_usage WHERE user_id = ? AND day = ?")
      .get(userId, today())) as { tokens: number } | undefined;
    return row?.tokens ?? 0;
  }
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}
