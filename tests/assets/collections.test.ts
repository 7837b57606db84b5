/**
 * The `collections` namespace: documents chunked and searched with FTS5 on the real store, ranked
 * best first with snippets, filtered by metadata, replaced by id, per user; and the chunker itself.
 */
import { describe, expect, it } from "vitest";
import { chunkText } from "../../server-bridge/collections/chunk.ts";
import { answerValue, errorOf, openRun } from "../engine/support.ts";
import { startTestServer } from "../support/server.ts";
import { COLLECTIONS } from "./support.ts";

interface Hit {
  document_id: string;
  chunk_index: number;
  snippet: string;
  text: string;
  metadata: Record<string, unknown>;
  score: number;
}

const CORPUS = [
  {
    id: "espresso",
    text: "Espresso is coffee brewed by forcing hot water through finely ground coffee. Espresso coffee is strong.",
    metadata: { kind: "drink", caffeine: true },
  },
  {
    id: "tea",
    text: "Green tea is steeped, not brewed under pressure. Some people add milk to black tea.",
    metadata: { kind: "drink", caffeine: true },
  },
  {
    id: "beans",
    text: "Coffee beans are roasted seeds. Roasting changes the flavour of the beans.",
    metadata: { kind: "ingredient", caffeine: true },
  },
  { id: "bread", text: "Bread is baked from flour, water and yeast.", metadata: { kind: "food", caffeine: false } },
];

describe("collections", () => {
  it("ranks the corpus by relevance, with snippets, and filters on metadata", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    expect(await call(COLLECTIONS, "create", ["kitchen", { description: "things to eat and drink" }])).toMatchObject({
      ok: true,
      value: { name: "kitchen" },
    });
    const indexed = answerValue<{ chunks: number; documents: { id: string; chunks: number }[] }>(
      await call(COLLECTIONS, "index", ["kitchen", { documents: CORPUS }]),
    );
    expect(indexed.documents.map((d) => d.id)).toEqual(["espresso", "tea", "beans", "bread"]);
    expect(indexed.chunks).toBe(4);

    const found = answerValue<{ results: Hit[] }>(await call(COLLECTIONS, "query", ["kitchen", "coffee"])).results;
    // Three documents mention coffee; the one that says it four times in a short text ranks first.
    expect(found.map((h) => h.document_id)).toEqual(["espresso", "beans"]);
    expect(found[0]?.snippet).toContain("[coffee]");
    expect(found[0]?.score).toBeGreaterThan(found[1]?.score ?? Number.POSITIVE_INFINITY);
    expect(found[0]?.metadata).toEqual({ kind: "drink", caffeine: true });

    // Porter stemming: "roast" finds "roasted" and "Roasting".
    const stemmed = answerValue<{ results: Hit[] }>(await call(COLLECTIONS, "query", ["kitchen", "roast"])).results;
    expect(stemmed.map((h) => h.document_id)).toEqual(["beans"]);

    const drinks = answerValue<{ results: Hit[] }>(
      await call(COLLECTIONS, "query", [{ collection: "kitchen", query: "brewed water", where: { kind: "drink" } }]),
    ).results;
    expect(drinks.map((h) => h.document_id).sort()).toEqual(["espresso", "tea"]);
    const decaf = answerValue<{ results: Hit[] }>(
      await call(COLLECTIONS, "query", [{ collection: "kitchen", query: "water", where: { caffeine: false } }]),
    ).results;
    expect(decaf.map((h) => h.document_id)).toEqual(["bread"]);

    // Query text is never FTS syntax.
    expect(await call(COLLECTIONS, "query", ["kitchen", 'coffee" OR NEAR( *'])).toMatchObject({ ok: true });
    expect(answerValue<{ results: Hit[] }>(await call(COLLECTIONS, "query", ["kitchen", "!!!"])).results).toEqual([]);
  });

  it("replaces a document indexed again under its id, chunks long text, lists and deletes", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    await call(COLLECTIONS, "create", ["notes"]);
    await call(COLLECTIONS, "index", ["notes", { documents: [{ id: "d1", text: "the old wording about zebras" }] }]);
    await call(COLLECTIONS, "index", ["notes", { documents: [{ id: "d1", text: "the new wording about giraffes" }] }]);
    expect(answerValue<{ results: Hit[] }>(await call(COLLECTIONS, "query", ["notes", "zebras"])).results).toEqual([]);
    expect(
      answerValue<{ results: Hit[] }>(await call(COLLECTIONS, "query", ["notes", "giraffes"])).results,
    ).toHaveLength(1);

    const long = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} talks about topic${i}.`).join(" ");
    const indexed = answerValue<{ documents: { id: string; chunks: number }[] }>(
      await call(COLLECTIONS, "index", ["notes", { documents: [{ text: long }], chunk_size: 300 }]),
    );
    const generated = indexed.documents[0];
    expect(generated?.id).toMatch(/^doc_/);
    expect(generated?.chunks).toBeGreaterThan(5);
    const hits = answerValue<{ results: Hit[] }>(await call(COLLECTIONS, "query", ["notes", "topic42"])).results;
    // One chunk holds the sentence; the next may repeat it in its overlap.
    expect(hits.length).toBeGreaterThanOrEqual(1);
    expect(hits.length).toBeLessThanOrEqual(2);
    for (const hit of hits) expect(hit.text).toContain("topic42");

    const listed = answerValue<{ collections: { name: string; documents: number; chunks: number }[] }>(
      await call(COLLECTIONS, "list", []),
    );
    expect(listed.collections).toMatchObject([{ name: "notes", documents: 2 }]);
    expect(errorOf(await call(COLLECTIONS, "create", ["notes"])).message).toMatch(/exists already/);

    expect(await call(COLLECTIONS, "delete", ["notes"])).toMatchObject({ ok: true });
    expect(errorOf(await call(COLLECTIONS, "query", ["notes", "giraffes"])).message).toMatch(/no collection "notes"/);
    const left = (await server.app.store.sql("SELECT count(*) AS n FROM collection_chunks").get()) as { n: number };
    expect(left.n).toBe(0);
  });

  it("keeps collections to their user", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    await call(COLLECTIONS, "create", ["mine"]);
    await call(COLLECTIONS, "index", ["mine", { documents: [{ text: "private words" }] }]);
    const other = await server.app.credentials.addUser("other");
    const live = await server.app.runs.start(
      other.userId,
      (await server.app.sessions.create(other.userId, { mode: "auto" })).sessionId,
    );
    expect(await live.run.invoke("list_collections", {})).toMatchObject({ ok: true, value: { collections: [] } });
    expect(await live.run.invoke("query_collection", { collection: "mine", query: "private" })).toMatchObject({
      ok: false,
      error: { code: "capability_failed" },
    });
    // The same name is free for another user.
    expect(await live.run.invoke("create_collection", { name: "mine" })).toMatchObject({ ok: true });
  });
});

describe("chunkText", () => {
  it("keeps short text whole and splits long text at paragraphs, then sentences, with overlap", () => {
    expect(chunkText("one short paragraph", 100)).toEqual(["one short paragraph"]);
    // Paragraphs packed while they fit; a single word longer than the overlap is not carried over.
    const paragraphs = ["a".repeat(60), "b".repeat(60), "c".repeat(60)].join("\n\n");
    expect(chunkText(paragraphs, 130)).toEqual([`${"a".repeat(60)}\n${"b".repeat(60)}`, "c".repeat(60)]);
    const sentences = Array.from({ length: 20 }, (_, i) => `Word${i} is here.`).join(" ");
    const chunks = chunkText(sentences, 100);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(110);
    expect(chunks.join(" ")).toContain("Word19 is here.");
    // The next chunk begins with the end of the one before.
    const carried = chunks[1]?.split(" Word")[0] ?? "";
    expect(carried).toBe("is here.");
    expect(chunks[0]?.endsWith(carried)).toBe(true);
  });

  it("cuts a word longer than a chunk", () => {
    expect(chunkText("x".repeat(250), 100).map((c) => c.length)).toEqual([100, 100, 50]);
  });
});
