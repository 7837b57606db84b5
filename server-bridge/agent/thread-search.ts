/**
 * Finding a conversation by what was said in it: each stored message keeps its readable text, lower
 * case, beside its JSON (`agent_messages.search`: the person's words, the model's, the code of each step
 * and what it answered, never the JSON's own keys), written with the message. Messages stored before
 * the column existed are filled in the first time their owner searches.
 */
import { AgentMessage } from "../../shared/agent/messages.ts";
import type { Store } from "../store/db.ts";

/** Longest text kept per message for searching (a long observation is searched in its beginning). */
const SEARCH_CHARS = 64 * 1024;
/** Characters shown on each side of where a conversation matched. */
const AROUND = 60;

/** A message's readable text: what a person would search it for. */
export function readableText(message: AgentMessage): string {
  const parts: string[] = [];
  const texts = (content: readonly { type: string; text?: string }[]) => {
    for (const part of content) if (part.type === "text" && part.text) parts.push(part.text);
  };
  if (message.role === "user") texts(message.content);
  else if (message.role === "tool") texts(message.content);
  else {
    parts.push(message.text);
    for (const call of message.tool_calls) {
      let code: unknown;
      try {
        code = (JSON.parse(call.arguments) as { code?: unknown }).code;
      } catch {
        code = undefined;
      }
      parts.push(typeof code === "string" ? code : call.arguments);
    }
  }
  return parts.join("\n").slice(0, SEARCH_CHARS);
}

/** What the `search` column holds for a message. */
export function searchColumn(message: AgentMessage): string {
  return readableText(message).toLowerCase();
}

/** A stored body as a message (undefined: not one, which a search passes over). */
function parsedBody(body: string): AgentMessage | undefined {
  try {
    const message = AgentMessage.safeParse(JSON.parse(body));
    return message.success ? message.data : undefined;
  } catch {
    return undefined;
  }
}

/** A LIKE pattern for text holding `query` (its wildcards escaped with `\`). */
function containing(query: string): string {
  return `%${query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The line around `query`'s first place in `text`, cut to a few words each side. */
export function around(text: string, query: string): string | undefined {
  const at = text.toLowerCase().indexOf(query.toLowerCase());
  if (at < 0) return undefined;
  const start = Math.max(0, at - AROUND);
  const end = Math.min(text.length, at + query.length + AROUND);
  const cut = text.slice(start, end).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${cut}${end < text.length ? "…" : ""}`;
}

/** A found thread's row, with the body of its first message that holds the query (null: only its title does). */
export type Found<Row> = Row & { hit: string | null };

/** Fills `search` for the user's messages stored before it existed. */
async function fillMissing(store: Store, userId: string): Promise<void> {
  for (;;) {
    const rows = (await store
      .sql(
        "SELECT m.thread_id, m.seq, m.body FROM agent_messages m JOIN agent_threads t ON t.id = m.thread_id WHERE t.user_id = ? AND m.search IS NULL LIMIT 200",
      )
      .all(userId)) as { thread_id: string; seq: number; body: string }[];
    if (rows.length === 0) return;
    // One transaction a batch: a long history is filled once, quickly, on the first search.
    await store.tx(async () => {
      for (const row of rows) {
        const message = parsedBody(row.body);
        await store
          .sql("UPDATE agent_messages SET search = ? WHERE thread_id = ? AND seq = ?")
          .run(message ? searchColumn(message) : "", row.thread_id, row.seq);
      }
    });
  }
}

/**
 * The user's threads whose title or messages hold `query` (case aside), newest first, at most `limit`:
 * each its row and the first message that holds it.
 */
export async function findThreads<Row>(
  store: Store,
  userId: string,
  query: string,
  limit: number,
): Promise<Found<Row>[]> {
  await fillMissing(store, userId);
  const pattern = containing(query);
  return (await store
    .sql(
      `SELECT t.*, (SELECT m.body FROM agent_messages m WHERE m.thread_id = t.id AND m.search LIKE ? ESCAPE '\\' ORDER BY m.seq LIMIT 1) AS hit
       FROM agent_threads t
       WHERE t.user_id = ? AND (lower(t.title) LIKE ? ESCAPE '\\'
         OR EXISTS (SELECT 1 FROM agent_messages m WHERE m.thread_id = t.id AND m.search LIKE ? ESCAPE '\\'))
       ORDER BY t.updated_at DESC, t.id LIMIT ?`,
    )
    .all(pattern, userId, pattern, pattern, limit)) as Found<Row>[];
}

/** Where a found thread matched, as a person reads it: the words around the query in its message. */
export function foundIn(hit: string | null, query: string): string | undefined {
  const message = hit === null ? undefined : parsedBody(hit);
  return message && around(readableText(message), query);
}
