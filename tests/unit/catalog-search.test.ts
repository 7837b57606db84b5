/**
 * The node search the palette, `search_nodes` and `ui_search_nodes` share: ranked the way palettes rank.
 */
import { describe, expect, it } from "vitest";
import { searchNodeTypes } from "../../shared/graph/catalog-search.ts";

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
    // `if` is inside `stringify`, which is no reason to offer Stringify JSON.
    expect(ids("if")).toEqual([]);
    expect(ids("  ")).toEqual([]);
    expect(ids("zebra")).toEqual([]);
  });

  it("keeps to the limit", () => {
    expect(ids("image", 3)).toHaveLength(3);
    expect(ids("image").length).toBeGreaterThan(3);
  });
});
