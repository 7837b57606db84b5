/** Searching the node palette, and the output renderers the page has: shared by page and server. */
import { NODE_TYPES } from "./node-types.ts";

export interface NodeTypeHit {
  id: string;
  title: string;
  description: string;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** How well one query word names a type: a whole word of its id or title, the start of one, or inside one. */
function headScore(word: string, head: readonly string[], headText: string): number {
  if (head.includes(word)) return 4;
  if (head.some((h) => h.startsWith(word))) return 3;
  // Inside a word (`scale` in `grayscale`) only for words long enough not to be noise (`if` in `stringify`).
  return word.length >= 3 && headText.includes(word) ? 1 : 0;
}

/**
 * Node types ranked the way palettes rank: the type whose title is the query first (`text` finds Text
 * before Text length), then by each query word: a whole word of the id or title, the start of one
 * (`conc` finds Concatenate), inside one, and the start of a word of the description; the shorter title
 * first among equals.
 */
/** Each type's words, made once (the catalog is fixed): the id's and title's, and the description's. */
const INDEX = NODE_TYPES.map((type) => {
  const headText = `${type.id} ${type.title}`.toLowerCase();
  return {
    type,
    title: type.title.toLowerCase(),
    headText,
    head: headText.match(WORD) ?? [],
    body: type.description.toLowerCase().match(WORD) ?? [],
  };
});

export function searchNodeTypes(query: string, limit = 20): NodeTypeHit[] {
  const wanted = query.toLowerCase().trim();
  const words = wanted.match(WORD) ?? [];
  if (words.length === 0) return [];
  return INDEX.map(({ type, title, headText, head, body }) => {
    const score = words.reduce(
      (sum, w) => sum + headScore(w, head, headText) + (body.some((b) => b.startsWith(w)) ? 1 : 0),
      title === wanted ? 10 : 0,
    );
    return { type, score };
  })
    .filter((hit) => hit.score > 0)
    .sort(
      (a, b) => b.score - a.score || a.type.title.length - b.type.title.length || a.type.id.localeCompare(b.type.id),
    )
    .slice(0, limit)
    .map(({ type }) => ({ id: type.id, title: type.title, description: type.description }));
}

export const RENDERERS = [
  { name: "json", description: "Any JSON value, pretty-printed" },
  { name: "text", description: "Strings, with invisible characters made visible" },
  { name: "image", description: "Asset references to images, shown inline" },
  { name: "table", description: "Lists of flat objects, as a table" },
] as const;
