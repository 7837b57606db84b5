/** Searching the node palette, and the output renderers the page has: shared by page and server. */
import { NODE_TYPES } from "./node-types.ts";

export interface NodeTypeHit {
  id: string;
  title: string;
  description: string;
}

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Other words people search for a type by (palettes keep such aliases: `sum` finds Add, `if` finds
 * Compare, `loop` finds Map template), below the type's own words.
 */
export const SEARCH_ALIASES: Readonly<Record<string, string>> = {
  "text.template": "format interpolate fill",
  "text.concat": "join append combine merge",
  "text.split": "words lines tokenize separate",
  "text.replace": "substitute swap",
  "text.length": "count characters size",
  "math.add": "sum plus increment",
  "math.subtract": "minus difference decrement",
  "math.multiply": "times product",
  "math.divide": "quotient ratio",
  "math.modulo": "remainder mod",
  "math.power": "exponent square pow",
  "math.compare": "if condition equal greater less check",
  "math.clamp": "limit min max bound range",
  "math.expression": "formula calculate calculator eval",
  "json.parse": "decode deserialize",
  "json.stringify": "encode serialize",
  "json.get": "pick extract field property lookup",
  "json.set": "update assign put field property",
  "csv.parse": "table spreadsheet rows columns excel comma tsv read",
  "csv.format": "table rows columns excel comma tsv export save",
  "table.filter": "where keep select query condition remove rows",
  "table.sort": "order arrange rank ascending descending",
  "table.column": "pluck field values select",
  "table.stats": "total average mean count min max aggregate summarize summary",
  "list.length": "count size items",
  "list.join": "combine implode",
  "list.slice": "take first last subset head tail",
  "list.map_template": "loop each foreach iterate map",
  "canvas.note": "comment sticky annotation text label documentation",
  "workflow.input": "parameter argument variable",
  "workflow.output": "result return answer",
  "control.delay": "wait sleep pause timer",
  "memory.save": "remember store note",
  "memory.search": "recall find lookup",
  "code.run": "javascript js script function custom",
  "asset.load": "file read open",
  "asset.save": "file write upload store",
  "image.resize": "scale thumbnail shrink enlarge",
  "image.crop": "cut trim",
  "image.grayscale": "greyscale monochrome desaturate black white",
  "image.convert": "format png jpeg webp encode",
  "image.metadata": "dimensions width height info",
  "http.request": "fetch url api get post web download curl",
};

/**
 * How well one query word names a type: a whole word of its id or title, the start of one, an alias
 * (whole, then its start), or inside a word of its id or title.
 */
function headScore(word: string, head: readonly string[], headText: string, aliases: readonly string[]): number {
  if (head.includes(word)) return 4;
  if (head.some((h) => h.startsWith(word))) return 3;
  if (aliases.includes(word)) return 3;
  if (word.length >= 3 && aliases.some((a) => a.startsWith(word))) return 2;
  // Inside a word (`scale` in `grayscale`) only for words long enough not to be noise (`if` in `stringify`).
  return word.length >= 3 && headText.includes(word) ? 1 : 0;
}

/** Each type's words, made once (the catalog is fixed): the id's and title's, and the description's. */
const INDEX = NODE_TYPES.map((type) => {
  const headText = `${type.id} ${type.title}`.toLowerCase();
  return {
    type,
    title: type.title.toLowerCase(),
    headText,
    head: headText.match(WORD) ?? [],
    aliases: SEARCH_ALIASES[type.id]?.split(" ") ?? [],
    body: type.description.toLowerCase().match(WORD) ?? [],
  };
});

/**
 * Node types ranked the way palettes rank: the type whose title is the query first (`text` finds Text
 * before Text length), then by each query word: a whole word of the id or title, the start of one
 * (`conc` finds Concatenate), an alias (`sum` finds Add), inside a word, and the start of a word of the
 * description; the shorter title first among equals.
 */
export function searchNodeTypes(query: string, limit = 20): NodeTypeHit[] {
  const wanted = query.toLowerCase().trim();
  const words = wanted.match(WORD) ?? [];
  if (words.length === 0) return [];
  return INDEX.map(({ type, title, headText, head, aliases, body }) => {
    const score = words.reduce(
      (sum, w) => sum + headScore(w, head, headText, aliases) + (body.some((b) => b.startsWith(w)) ? 1 : 0),
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
