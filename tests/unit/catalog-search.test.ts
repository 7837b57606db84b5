/**
 * The node search the palette, `search_nodes` and `ui_search_nodes` share: ranked the way palettes rank.
 */
import { describe, expect, it } from "vitest";
import { SEARCH_ALIASES, searchNodeTypes } from "../../shared/graph/catalog-search.ts";
import { NODE_TYPES } from "../../shared/graph/node-types.ts";

const ids = (query: string, limit?: number) => searchNodeTypes(query, limit).map((hit) => hit.id);

describe("searchNodeTypes", () => {
  it("puts the type whose title is the query first", () => {
    expect(ids("text")[0]).toBe("constant.string");
    expect(ids("JSON")[0]).toBe("constant.json");
    expect(ids("text length")[0]).toBe("text.length");
    expect(ids("Add")[0]).toBe("math.add");
  });

  it("finds a type by the start of a word of its title or id, the shorter title first among equals", () => {
    expect(ids("conc")).toEqual(["text.concat"]);
    expect(ids("mult")).toEqual(["math.multiply"]);
    expect(ids("temp")).toEqual(["text.template", "list.map_template"]);
    expect(ids("gray")[0]).toBe("image.grayscale");
  });

  it("ignores two letters inside a word, and finds nothing for nothing", () => {
    // `if` is inside `stringify`, which is no reason to offer Stringify JSON (it is Compare's alias).
    expect(ids("if")).toEqual(["math.compare"]);
    expect(ids("xy")).toEqual([]);
    expect(ids("  ")).toEqual([]);
    expect(ids("zebra")).toEqual([]);
  });

  it("finds a type by the other words people search for it by, below its own words", () => {
    // Adding two numbers first; a column's total (its description says sum) next.
    expect(ids("sum").slice(0, 2)).toEqual(["math.add", "table.stats"]);
    expect(ids("total")[0]).toBe("table.stats");
    expect(ids("spreadsheet")[0]).toBe("csv.parse");
    expect(ids("where")[0]).toBe("table.filter");
    expect(ids("loop")[0]).toBe("list.map_template");
    expect(ids("for each")[0]).toBe("list.map_template");
    expect(ids("wait")).toEqual(["control.delay"]);
    expect(ids("fetch")).toEqual(["http.request"]);
    expect(ids("javascript")).toEqual(["code.run"]);
    // An alias's start, for words long enough: `thumb` finds Resize image.
    expect(ids("thumb")).toEqual(["image.resize"]);
    // A type's own word ranks above another's alias: `join` is Join list's title, Concatenate's alias.
    expect(ids("join").slice(0, 2)).toEqual(["list.join", "text.concat"]);
  });

  it("has aliases only for types that exist, each alias a lowercase word", () => {
    const known = new Set(NODE_TYPES.map((t) => t.id));
    for (const [id, words] of Object.entries(SEARCH_ALIASES)) {
      expect(known.has(id), id).toBe(true);
      expect(words, id).toMatch(/^[a-z]+( [a-z]+)*$/);
    }
  });

  it("keeps to the limit", () => {
    expect(ids("image", 3)).toHaveLength(3);
    expect(ids("image").length).toBeGreaterThan(3);
  });
});
