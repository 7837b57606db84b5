/**
 * The thread store keeps each thread's messages in memory as of the thread's revision (bumped by a
 * trigger on every write to its messages): a turn of a long conversation does not read every row again,
 * while whatever another process (or an operator's hand edit) wrote is still what the next read sees.
 * Runs on SQLite, and on Postgres when DATABASE_URL is set (CI's second pass).
 */
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ThreadStore } from "../../server-bridge/agent/threads.ts";
import { openStore, type Store } from "../../server-bridge/store/db.ts";
import type { AgentMessage } from "../../shared/agent/messages.ts";
import { databaseFor, dropDatabaseFor } from "../support/database.ts";
import { tempDir } from "../support/server.ts";

const USER = "u_threads";
const user = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }] });
const answer = (text: string, interrupted = false): AgentMessage => ({
  role: "assistant",
  text,
  tool_calls: [],
  ...(interrupted ? { interrupted } : {}),
});

/** The real store, with the SQL texts issued through it recorded (what was read, not how). */
function recorded(store: Store): { store: Store; texts: string[] } {
  const texts: string[] = [];
  const proxy: Store = Object.create(store, {
    sql: {
      value: (text: string) => {
        texts.push(text);
        return store.sql(text);
      },
    },
  });
  return { store: proxy, texts };
}

const rowReads = (texts: readonly string[]) => texts.filter((t) => /^SELECT seq, body/.test(t)).length;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function open(): Promise<{ dataDir: string; store: Store }> {
  const dataDir = tempDir();
  const store = await openStore(dataDir, await databaseFor(dataDir));
  cleanup.push(async () => {
    await store.dispose();
    await dropDatabaseFor(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });
  await store.sql("INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)").run(USER, "threads", 0);
  return { dataDir, store };
}

describe("the thread store's messages in memory", () => {
  it("answers a thread's own writes without reading its rows again, and reads the same as a fresh store", async () => {
    const { store } = await open();
    const { store: watched, texts } = recorded(store);
    const threads = new ThreadStore(watched);
    const thread = await threads.create(USER);
    expect(await threads.messagesOf(thread)).toEqual([]);
    const [, placeholder] = await threads.append(thread.id, [user("one"), answer("", true)]);
    await threads.complete(USER, thread.id, placeholder as number, answer("first"), {
      input_tokens: 7,
      output_tokens: 2,
    });
    await threads.append(thread.id, [user("two"), answer("cut", true)]);
    await threads.end(USER, thread.id, { status: "stopped", message: "cancelled: Stopped by the user." });
    const reads = rowReads(texts);
    const mine = await threads.messagesOf(thread);
    expect(rowReads(texts)).toBe(reads);
    // What a store that never saw these writes reads from the rows.
    const fresh = await new ThreadStore(store).messagesOf(thread);
    expect(mine).toEqual(fresh);
    expect(fresh.map((m) => m.message)).toMatchObject([
      { role: "user" },
      { role: "assistant", text: "first" },
      { role: "user" },
      { role: "assistant", text: "cut", ended: { status: "stopped" } },
    ]);
    expect(fresh[1]?.usage).toEqual({ input_tokens: 7, output_tokens: 2 });
  });

  it("reads again what another process wrote, and what an operator changed by hand", async () => {
    const { store } = await open();
    const threads = new ThreadStore(store);
    const other = new ThreadStore(store);
    const thread = await threads.create(USER);
    await threads.append(thread.id, [user("one"), answer("first")]);
    expect(await threads.messagesOf(thread)).toHaveLength(2);
    await other.append(thread.id, [user("two")]);
    expect((await threads.messagesOf(thread)).map((m) => m.seq)).toEqual([1, 2, 3]);
    // A write here after another's: the kept copy was stale, so it is not patched but read again.
    await other.append(thread.id, [answer("second")]);
    await threads.append(thread.id, [user("three")]);
    expect((await threads.messagesOf(thread)).map((m) => m.message)).toMatchObject([
      { role: "user" },
      { text: "first" },
      { role: "user" },
      { text: "second" },
      { role: "user", content: [{ text: "three" }] },
    ]);
    await store
      .sql("UPDATE agent_messages SET body = ? WHERE thread_id = ? AND seq = 1")
      .run(JSON.stringify(user("one, edited")), thread.id);
    await store.sql("DELETE FROM agent_messages WHERE thread_id = ? AND seq = 2").run(thread.id);
    const now = await threads.messagesOf(thread);
    expect(now.map((m) => m.seq)).toEqual([1, 3, 4, 5]);
    expect(now[0]?.message).toEqual(user("one, edited"));
  });

  it("reads a message that did not read before once this store rewrites it", async () => {
    const { store } = await open();
    const threads = new ThreadStore(store);
    const thread = await threads.create(USER);
    const [, seq] = await threads.append(thread.id, [user("one"), answer("", true)]);
    // An operator's edit leaves the placeholder unreadable: it is left out, the rest still reads.
    await store
      .sql("UPDATE agent_messages SET body = ? WHERE thread_id = ? AND seq = ?")
      .run(JSON.stringify({ role: "nobody" }), thread.id, seq);
    expect((await threads.messagesOf(thread)).map((m) => m.seq)).toEqual([1]);
    await threads.complete(USER, thread.id, seq as number, answer("first"), { input_tokens: 3, output_tokens: 1 });
    expect((await threads.messagesOf(thread)).map((m) => m.message)).toMatchObject([
      { role: "user" },
      { role: "assistant", text: "first" },
    ]);
  });
});
