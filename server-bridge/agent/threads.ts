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
import { findThreads, foundIn, searchColumn } from "./thread-search.ts";

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
/** Threads whose messages are kept in memory (a turn re-reads its whole thread). */
const CACHED_THREADS = 64;

/** A stored message as last read or written here, with the JSON it is stored as. */
interface Known extends StoredMessage {
  body: string;
}

/** A thread's messages as of a revision of it (`rev`, bumped by every write to its messages). */
interface CachedThread {
  rev: number;
  messages: Known[];
}

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
  /**
   * Per thread, its messages as of a revision: kept up to date by this store's own writes, read again
   * when the thread's revision says another writer changed them. Shared: read-only.
   */
  readonly #cached = new Map<string, CachedThread>();

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

  /**
   * The user's conversations whose title or messages hold `query` (case aside), newest first, each with
   * the words around where its messages hold it (`found`; none when only the title does).
   */
  async search(userId: string, query: string, limit = 50): Promise<{ thread: ThreadView; found?: string }[]> {
    const rows = await findThreads<ThreadRow>(this.store, userId, query, limit);
    return rows.map((row) => {
      const found = foundIn(row.hit, query);
      return found === undefined ? { thread: view(row) } : { thread: view(row), found };
    });
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
    this.#cached.delete(threadId);
  }

  async messages(userId: string, threadId: string): Promise<StoredMessage[]> {
    return this.messagesOf(await this.require(userId, threadId));
  }

  /**
   * The messages of a thread its owner was already checked for (`require` answered it). The thread's
   * revision is read every time (another process may have written it): while it is the one last seen
   * here, the messages kept in memory are answered; else the rows are read again, and a row whose body
   * is unchanged is not parsed again. So a turn's re-read of a long thread does not grow with it.
   */
  async messagesOf(thread: ThreadView): Promise<StoredMessage[]> {
    const rev = await this.#rev(thread.id);
    const before = this.#cached.get(thread.id);
    if (before && before.rev === rev) return this.#keep(thread.id, before).messages.map(stored);
    const rows = (await this.store
      .sql("SELECT seq, body, input_tokens, output_tokens FROM agent_messages WHERE thread_id = ? ORDER BY seq")
      .all(thread.id)) as { seq: number; body: string; input_tokens: number; output_tokens: number }[];
    const kept = new Map(before?.messages.map((known) => [known.seq, known]));
    const messages: Known[] = [];
    for (const { seq, body, input_tokens, output_tokens } of rows) {
      const known = kept.get(seq);
      const usage = { input_tokens, output_tokens };
      const read = known && known.body === body ? { ...known, usage } : parsed(seq, body, usage);
      if (read) messages.push(read);
    }
    // The rows were read after the revision: they hold at least its writes, so the pair is safe to keep.
    return this.#keep(thread.id, { rev, messages }).messages.map(stored);
  }

  /** Keeps a thread's messages as the most recently used, within CACHED_THREADS. */
  #keep(threadId: string, cached: CachedThread): CachedThread {
    this.#cached.delete(threadId);
    if (this.#cached.size >= CACHED_THREADS) this.#cached.delete(this.#cached.keys().next().value as string);
    this.#cached.set(threadId, cached);
    return cached;
  }

  /** A thread's revision (0 when it is gone): every write to its messages bumps it (migration 009's triggers). */
  async #rev(threadId: string): Promise<number> {
    const row = (await this.store.sql("SELECT rev FROM agent_threads WHERE id = ?").get(threadId)) as
      | { rev: number }
      | undefined;
    return row?.rev ?? 0;
  }

  /**
   * Writes to a thread's messages in one transaction that reads the revision before and after `write`,
   * then applies the write to the kept messages when they are of the revision before; else (they were
   * already stale, or `apply` cannot place the write in them) forgets them: the next read reloads.
   */
  async #write(
    threadId: string,
    write: () => Promise<void>,
    apply: (messages: Known[]) => Known[] | undefined,
  ): Promise<void> {
    const { before, after } = await this.store.tx(async () => {
      const before = await this.#rev(threadId);
      await write();
      return { before, after: await this.#rev(threadId) };
    });
    const cached = this.#cached.get(threadId);
    if (!cached) return;
    const messages = cached.rev === before ? apply(cached.messages) : undefined;
    if (messages) this.#cached.set(threadId, { rev: after, messages });
    else this.#cached.delete(threadId);
  }

  /** Appends messages at the end of the thread; answers the seq of each. */
  async append(threadId: string, messages: readonly AgentMessage[]): Promise<number[]> {
    const added: { seq: number; body: string }[] = [];
    const write = async () => {
      const last = (await this.store
        .sql("SELECT max(seq) AS n FROM agent_messages WHERE thread_id = ?")
        .get(threadId)) as {
        n: number | null;
      };
      let seq = last.n ?? 0;
      const at = Date.now();
      for (const message of messages) {
        seq++;
        const body = JSON.stringify(message);
        await this.store
          .sql("INSERT INTO agent_messages (thread_id, seq, body, search, created_at) VALUES (?, ?, ?, ?, ?)")
          .run(threadId, seq, body, searchColumn(message), at);
        added.push({ seq, body });
      }
      await this.store.sql("UPDATE agent_threads SET updated_at = ? WHERE id = ?").run(at, threadId);
    };
    await this.#write(threadId, write, (kept) => [
      ...kept,
      ...added.flatMap(({ seq, body }) => parsed(seq, body, { input_tokens: 0, output_tokens: 0 }) ?? []),
    ]);
    return added.map((known) => known.seq);
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
    const body = JSON.stringify(message);
    await this.#write(
      threadId,
      async () => {
        await this.store
          .sql("UPDATE agent_messages SET body = ?, search = ? WHERE thread_id = ? AND seq = ?")
          .run(body, searchColumn(message), threadId, last.seq);
      },
      (kept) => replaced(kept, last.seq, (known) => parsed(known.seq, body, known.usage)),
    );
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
    const body = JSON.stringify(message);
    const write = async () => {
      await this.store
        .sql(
          "UPDATE agent_messages SET body = ?, search = ?, input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE thread_id = ? AND seq = ?",
        )
        .run(body, searchColumn(message), usage.input_tokens, usage.output_tokens, threadId, seq);
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
    };
    await this.#write(threadId, write, (kept) =>
      replaced(kept, seq, (known) =>
        parsed(seq, body, {
          input_tokens: known.usage.input_tokens + usage.input_tokens,
          output_tokens: known.usage.output_tokens + usage.output_tokens,
        }),
      ),
    );
  }

  /** Tokens this user used today (UTC), what the daily budget counts. */
  async usedToday(userId: string): Promise<number> {
    const row = (await this.store
      .sql("SELECT tokens FROM agent_usage WHERE user_id = ? AND day = ?")
      .get(userId, today())) as { tokens: number } | undefined;
    return row?.tokens ?? 0;
  }
}

/** A stored row as read back (the message as the schema reads its JSON), or undefined when it does not read. */
function parsed(seq: number, body: string, usage: TokenUsage): Known | undefined {
  const message = AgentMessage.safeParse(JSON.parse(body)).data;
  return message && { seq, body, message, usage };
}

/**
 * The kept messages with the one at `seq` replaced by `next` of it (left out when its new body does not
 * read), or undefined when none is kept at `seq` (a row that did not read before): then they are reloaded.
 */
function replaced(kept: readonly Known[], seq: number, next: (known: Known) => Known | undefined): Known[] | undefined {
  const at = kept.findIndex((known) => known.seq === seq);
  if (at < 0) return undefined;
  const now = next(kept[at] as Known);
  return [...kept.slice(0, at), ...(now ? [now] : []), ...kept.slice(at + 1)];
}

/** What a copy of a kept message answers: the stored message without its body. */
function stored({ seq, message, usage }: Known): StoredMessage {
  return { seq, message, usage };
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}
