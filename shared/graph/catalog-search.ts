/** Searching the node palette, and the output renderers the page has: shared by page and server. */
import { NODE_TYPES } from "./node-types.ts";

export interface NodeTypeHit {
  id: string;
  title: string;
  description: string;
}

/** Node types ranked by how many query words they contain (id and title count double). */
export function searchNodeTypes(query: string, limit = 20): NodeTypeHit[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return [];
  return NODE_TYPES.map((type) => {
    const head = `${type.id} ${type.title}`.toLowerCase();
    const body = type.description.toLowerCase();
    const segments = type.id.toLowerCase().split(".");
    // A word that is a whole segment of the id (`template` in `text.template`) is the best match.
    const score = words.reduce(
      (sum, w) => sum + (segments.includes(w) ? 3 : 0) + (head.includes(w) ? 2 : 0) + (body.includes(w) ? 1 : 0),
      0,
    );
    return { type, score };
  })
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.type.id.localeCompare(b.type.id))
    .slice(0, limit)
    .map(({ type }) => ({ id: type.id, title: type.title, description: type.description }));
}

export const RENDERERS = [
  { name: "json", description: "Any JSON value, pretty-printed" },
  { name: "text", description: "Strings, with invisible characters made visible" },
  { name: "image", description: "Asset references to images, shown inline" },
  { name: "table", description: "Lists of flat objects, as a table" },
] as const;
