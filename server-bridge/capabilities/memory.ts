/**
 * Implementations of the `memory` namespace: durable, per user, searched with the store's own full-text
 * search (SQLite FTS5 and bm25; Postgres tsvector and ts_rank). Scores are higher-is-better on both.
 */
import {
  deleteMemory,
  listMemories,
  saveMemory,
  searchMemories,
} from "../../shared/capabilities/specs/memory.specs.ts";
import { newId } from "../../shared/gate/approvals.ts";
import type { Dialect } from "../store/db.ts";
import { implement } from "./define.ts";
import { notFound } from "./errors.ts";

interface Row {
  id: string;
  content: string;
  tags: string;
  created_at: number;
}

const view = (row: Row) => ({
  id: row.id,
  content: row.content,
  tags: JSON.parse(row.tags) as string[],
  created_at: new Date(row.created_at).toISOString(),
});

/** Every word quoted, so user text can never be read as query syntax (FTS5's or tsquery's). */
function ftsQuery(text: string, dialect: Dialect): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return dialect === "postgres" ? words.map((w) => `'${w}'`).join(" | ") : words.map((w) => `"${w}"`).join(" OR ");
}

const HAS_TAG: Record<Dialect, string> = {
  sqlite: "EXISTS (SELECT 1 FROM json_each(memories.tags) WHERE value = ?)",
  postgres: "EXISTS (SELECT 1 FROM json_array_elements_text(memories.tags::json) AS t(value) WHERE t.value = ?)",
};

/** The user's memories matching the query, best first, `score` higher-is-better. */
const SEARCH: Record<Dialect, string> = {
  sqlite: `SELECT m.id, m.content, m.tags, m.created_at, -bm25(memories_fts) AS score
    FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid
    WHERE memories_fts MATCH ? AND m.user_id = ? ORDER BY score DESC LIMIT ?`,
  postgres: `SELECT m.id, m.content, m.tags, m.created_at, ts_rank(m.search, q) AS score
    FROM memories m, to_tsquery('simple', ?) q
    WHERE m.search @@ q AND m.user_id = ? ORDER BY score DESC, m.rowid LIMIT ?`,
};

export default [
  implement(saveMemory, async (run, args) => {
    const id = newId("mem");
    const at = Date.now();
    await run.services.store
      .sql("INSERT INTO memories (id, user_id, content, tags, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(id, run.context.user_id, args.content, JSON.stringify(args.tags), at);
    return view({ id, content: args.content, tags: JSON.stringify(args.tags), created_at: at });
  }),
  implement(listMemories, async (run, args) => {
    const rows = (await run.services.store
      .sql(
        `SELECT id, content, tags, created_at FROM memories WHERE user_id = ?
         AND (CAST(? AS TEXT) IS NULL OR ${HAS_TAG[run.services.store.dialect]})
         ORDER BY created_at DESC, rowid DESC LIMIT ?`,
      )
      .all(run.context.user_id, args.tag ?? null, args.tag ?? null, args.limit)) as Row[];
    return { memories: rows.map(view) };
  }),
  implement(searchMemories, async (run, args) => {
    const { store } = run.services;
    const query = ftsQuery(args.query, store.dialect);
    if (!query) return { memories: [] };
    const rows = (await store.sql(SEARCH[store.dialect]).all(query, run.context.user_id, args.limit)) as (Row & {
      score: number;
    })[];
    return { memories: rows.map((row) => ({ ...view(row), score: row.score })) };
  }),
  implement(deleteMemory, async (run, args) => {
    const result = await run.services.store
      .sql("DELETE FROM memories WHERE id = ? AND user_id = ?")
      .run(args.memory_id, run.context.user_id);
    if (result.changes === 0)
      throw notFound("memory", args.memory_id, "Call memory.list() or memory.search() for ids.");
    return { deleted: args.memory_id };
  }),
];
