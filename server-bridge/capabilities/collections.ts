/**
 * Implementations of the `collections` namespace: documents chunked into store rows, searched with the
 * store's full-text search (SQLite FTS5 with bm25 and snippets; Postgres tsvector, ts_rank, ts_headline).
 * Per user: every statement is scoped by the collection's owner.
 */
import {
  createCollection,
  deleteCollection,
  indexDocuments,
  listCollections,
  queryCollection,
} from "../../shared/capabilities/specs/collections.specs.ts";
import { newId } from "../../shared/gate/approvals.ts";
import { chunkText } from "../collections/chunk.ts";
import type { Dialect } from "../store/db.ts";
import { implement, type ServerRun } from "./define.ts";
import { failed } from "./errors.ts";

/** Text one index_documents call may add, in characters. */
const MAX_TEXT_PER_CALL = 10_000_000;

interface CollectionRow {
  id: string;
  name: string;
  description: string;
  created_at: number;
}

async function find(run: ServerRun, ref: string): Promise<CollectionRow> {
  const row = (await run.services.store
    .sql(
      `SELECT id, name, description, created_at FROM collections WHERE user_id = ? AND (id = ? OR name = ?)
       ORDER BY id = ? DESC LIMIT 1`,
    )
    .get(run.context.user_id, ref, ref, ref)) as CollectionRow | undefined;
  if (!row) {
    throw failed(`There is no collection "${ref}". Call collections.list() for names, or collections.create(name).`);
  }
  return row;
}

/** Every word quoted, so user text can never be read as query syntax (FTS5's or tsquery's). */
function ftsQuery(text: string, dialect: Dialect): string {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return dialect === "postgres" ? words.map((w) => `'${w}'`).join(" | ") : words.map((w) => `"${w}"`).join(" OR ");
}

type Scalar = string | number | boolean | null;

/**
 * One metadata filter and its bound values. SQLite has no boolean: JSON true/false read back from
 * metadata as 1/0. Postgres compares JSON values (a missing key counts as null, as in SQLite).
 */
const FILTER: Record<Dialect, { sql: string; values(key: string, value: Scalar): unknown[] }> = {
  sqlite: {
    sql: "AND json_extract(k.metadata, '$.' || ?) IS ?",
    values: (key, value) => [key, typeof value === "boolean" ? Number(value) : value],
  },
  postgres: {
    sql: "AND coalesce(k.metadata::jsonb -> CAST(? AS TEXT), 'null'::jsonb) = CAST(? AS TEXT)::jsonb",
    values: (key, value) => [key, JSON.stringify(value)],
  },
};

/** Matching chunks of one collection, best first: `score` is higher-is-better on both stores. */
const QUERY: Record<Dialect, (where: string) => string> = {
  sqlite: (where) => `SELECT k.document_id, k.chunk_index, k.text, k.metadata, -bm25(collection_chunks_fts) AS score,
      snippet(collection_chunks_fts, 0, '[', ']', '…', 16) AS snippet
    FROM collection_chunks_fts JOIN collection_chunks k ON k.id = collection_chunks_fts.rowid
    WHERE collection_chunks_fts MATCH ? AND k.collection_id = ? ${where}
    ORDER BY score DESC LIMIT ?`,
  postgres: (where) => `SELECT k.document_id, k.chunk_index, k.text, k.metadata, ts_rank(k.search, q) AS score,
      ts_headline('english', k.text, q, 'StartSel=[, StopSel=], MaxWords=16, MinWords=5') AS snippet
    FROM collection_chunks k, to_tsquery('english', ?) q
    WHERE k.search @@ q AND k.collection_id = ? ${where}
    ORDER BY score DESC, k.id LIMIT ?`,
};

export default [
  implement(listCollections, async (run) => {
    const rows = (await run.services.store
      .sql(
        `SELECT c.id, c.name, c.description, c.created_at,
                count(DISTINCT k.document_id) AS documents, count(k.id) AS chunks
         FROM collections c LEFT JOIN collection_chunks k ON k.collection_id = c.id
         WHERE c.user_id = ? GROUP BY c.id ORDER BY c.name`,
      )
      .all(run.context.user_id)) as (CollectionRow & { documents: number; chunks: number })[];
    return {
      collections: rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() })),
    };
  }),

  implement(createCollection, async (run, args) => {
    const { store } = run.services;
    return await store.tx(async () => {
      const exists = await store
        .sql("SELECT 1 FROM collections WHERE user_id = ? AND name = ?")
        .get(run.context.user_id, args.name);
      if (exists) {
        throw failed(`A collection named "${args.name}" exists already: index into it, or delete it first.`);
      }
      const id = newId("col");
      const at = Date.now();
      await store
        .sql("INSERT INTO collections (id, user_id, name, description, created_at) VALUES (?, ?, ?, ?, ?)")
        .run(id, run.context.user_id, args.name, args.description, at);
      return { id, name: args.name, description: args.description, created_at: new Date(at).toISOString() };
    });
  }),

  implement(indexDocuments, async (run, args) => {
    const total = args.documents.reduce((sum, d) => sum + d.text.length, 0);
    if (total > MAX_TEXT_PER_CALL) {
      throw failed(
        `These documents hold ${total} characters; one call may index at most ${MAX_TEXT_PER_CALL}. Index them in several calls.`,
      );
    }
    const { store } = run.services;
    return await store.tx(async () => {
      const collection = await find(run, args.collection);
      const drop = store.sql("DELETE FROM collection_chunks WHERE collection_id = ? AND document_id = ?");
      const insert = store.sql(
        `INSERT INTO collection_chunks (collection_id, document_id, chunk_index, text, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      );
      const at = Date.now();
      const documents: { id: string; chunks: number }[] = [];
      for (const doc of args.documents) {
        const id = doc.id ?? newId("doc");
        await drop.run(collection.id, id);
        const chunks = chunkText(doc.text, args.chunk_size);
        const metadata = JSON.stringify(doc.metadata);
        for (const [i, text] of chunks.entries()) await insert.run(collection.id, id, i, text, metadata, at);
        documents.push({ id, chunks: chunks.length });
      }
      return {
        collection: collection.name,
        documents,
        chunks: documents.reduce((sum, d) => sum + d.chunks, 0),
      };
    });
  }),

  implement(queryCollection, async (run, args) => {
    const collection = await find(run, args.collection);
    const { dialect } = run.services.store;
    const match = ftsQuery(args.query, dialect);
    if (!match) return { collection: collection.name, results: [] };
    const filters = Object.entries(args.where ?? {});
    // Keys are letters, digits and _ only (the spec's MetaKey), so the JSON path cannot be escaped.
    const filter = FILTER[dialect];
    const where = filters.map(() => filter.sql).join(" ");
    const rows = (await run.services.store
      .sql(QUERY[dialect](where))
      .all(match, collection.id, ...filters.flatMap(([key, value]) => filter.values(key, value)), args.limit)) as {
      document_id: string;
      chunk_index: number;
      text: string;
      metadata: string;
      score: number;
      snippet: string;
    }[];
    return {
      collection: collection.name,
      results: rows.map((r) => ({
        document_id: r.document_id,
        chunk_index: r.chunk_index,
        snippet: r.snippet,
        text: r.text,
        // Written by index_documents from metadata its spec checked: scalars by key.
        metadata: JSON.parse(r.metadata) as Record<string, string | number | boolean | null>,
        // bm25 is tiny on small corpora (its idf floors near 0), so never rounded to zero.
        score: Number(r.score.toPrecision(6)),
      })),
    };
  }),

  implement(deleteCollection, async (run, args) => {
    const { store } = run.services;
    return await store.tx(async () => {
      const collection = await find(run, args.collection);
      await store.sql("DELETE FROM collection_chunks WHERE collection_id = ?").run(collection.id);
      await store.sql("DELETE FROM collections WHERE id = ?").run(collection.id);
      return { deleted: collection.name, id: collection.id };
    });
  }),
];
