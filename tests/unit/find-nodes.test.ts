/** The node finder's search: every word, in a node's title, type (id or title) or id; exact first. */
import { describe, expect, it } from "vitest";
import { findNodes } from "../../web/src/editor/NodeFinder.tsx";

const at = { x: 0, y: 0 };
const graph = {
  nodes: [
    { id: "tax", type: "math.multiply", data: {}, position: at, title: "Price with tax" },
    { id: "add_1", type: "math.add", data: {}, position: at },
    { id: "total", type: "math.add", data: {}, position: at, title: "Tax total" },
    { id: "n4", type: "text.length", data: {}, position: at, title: "tax" },
  ],
  edges: [],
};
const ids = (query: string) => findNodes(graph, query).map((n) => n.id);

describe("findNodes", () => {
  it("finds by every word of a title, a type's id or title, or an id; an exact id or title first", () => {
    expect(ids("TAX")).toEqual(["tax", "n4", "total"]);
    expect(ids("add")).toEqual(["add_1", "total"]);
    expect(ids("multiply price")).toEqual(["tax"]);
    expect(ids("text length")).toEqual(["n4"]);
  });

  it("lists every node for no words, in the graph's order, and none when a word is nowhere", () => {
    expect(ids(" ")).toEqual(["tax", "add_1", "total", "n4"]);
    expect(ids("add zebra")).toEqual([]);
  });
});
