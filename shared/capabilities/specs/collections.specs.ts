/** Specs of the `collections` namespace (searchable document sets, per user): data only. */
import { z } from "zod";
import { IsoTime } from "../outputs.ts";
import { defineSpec, type ModuleSpecs } from "../types.ts";

const CollectionRef = z.string().min(1).max(200).describe("The collection's name (or id)");

/** Metadata values are scalars so they can be filtered on with `where`. */
const Scalar = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]);
const MetaKey = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_]+$/, "use letters, digits and _ in metadata keys");

const Collection = z.strictObject({ id: z.string(), name: z.string(), description: z.string(), created_at: IsoTime });

export const listCollections = defineSpec({
  name: "list_collections",
  method: "list",
  description: "List the user's collections: id, name, description, document and chunk counts.",
  category: "read",
  input: z.object({}),
  output: z.strictObject({
    collections: z.array(
      z.strictObject({ ...Collection.shape, documents: z.number().int(), chunks: z.number().int() }),
    ),
  }),
});

export const createCollection = defineSpec({
  name: "create_collection",
  method: "create",
  description: "Create an empty collection to index documents into. Names are unique per user.",
  category: "write",
  positional: ["name"],
  input: z.object({
    name: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[\p{L}\p{N}_ .-]+$/u, "use letters, digits, spaces, _ . and - in a collection name"),
    description: z.string().max(2000).default(""),
  }),
  userMessage: (args) => `Create collection "${args.name}"`,
  output: Collection,
});

export const indexDocuments = defineSpec({
  name: "index_documents",
  method: "index",
  description:
    "Add documents to a collection for full-text search. Each document's text is split into chunks of about chunk_size characters; a document given with an id that is already indexed replaces it.",
  category: "write",
  positional: ["collection"],
  input: z.object({
    collection: CollectionRef,
    documents: z
      .array(
        z.object({
          id: z.string().min(1).max(200).optional().describe("Your id for the document; generated when absent"),
          text: z.string().min(1).max(1_000_000),
          metadata: z.record(MetaKey, Scalar).default({}),
        }),
      )
      .min(1)
      .max(500),
    chunk_size: z.number().int().min(100).max(10_000).default(1000),
  }),
  userMessage: (args) => `Index ${args.documents.length} document(s) into collection "${args.collection}"`,
  output: z.strictObject({
    collection: z.string(),
    documents: z.array(z.strictObject({ id: z.string(), chunks: z.number().int() })),
    chunks: z.number().int(),
  }),
});

export const queryCollection = defineSpec({
  name: "query_collection",
  method: "query",
  description:
    "Full-text search in a collection, best match first: each hit has the document id, chunk index, a snippet with the matching words in [brackets], the chunk's text, its metadata and a score (higher is better).",
  category: "read",
  positional: ["collection", "query"],
  input: z.object({
    collection: CollectionRef,
    query: z.string().min(1).max(1000).describe("Words to look for"),
    limit: z.number().int().min(1).max(100).default(10),
    where: z.record(MetaKey, Scalar).optional().describe("Only chunks whose metadata has these exact values"),
  }),
  output: z.strictObject({
    collection: z.string(),
    results: z.array(
      z.strictObject({
        document_id: z.string(),
        chunk_index: z.number().int(),
        snippet: z.string().describe("The matching words in [brackets]"),
        text: z.string(),
        metadata: z.record(z.string(), Scalar),
        score: z.number().describe("Higher is better"),
      }),
    ),
  }),
});

export const deleteCollection = defineSpec({
  name: "delete_collection",
  method: "delete",
  description: "Delete a collection and everything indexed in it.",
  category: "write",
  positional: ["collection"],
  input: z.object({ collection: CollectionRef }),
  userMessage: (args) => `Delete collection "${args.collection}" and its documents`,
  output: z.strictObject({ deleted: z.string(), id: z.string() }),
});

export const collectionsModule: ModuleSpecs = {
  name: "collections",
  description: "Collections: documents the user indexes and searches by full text.",
  specs: [listCollections, createCollection, indexDocuments, queryCollection, deleteCollection],
};
