/** How two graphs of a workflow differ, as the Versions dialog's `Changes` says it. */
import { describe, expect, it } from "vitest";
import { describeDiff, diffGraphs } from "../../shared/graph/diff.ts";
import type { Graph, GraphNode } from "../../shared/graph/document.ts";

const n = (
  id: string,
  type: string,
  data: Record<string, unknown> = {},
  extra: Partial<GraphNode> = {},
): GraphNode => ({
  id,
  type,
  data,
  position: { x: 0, y: 0 },
  ...extra,
});
const edge = (id: string, source: string, target: string, targetHandle: string) => ({
  id,
  source,
  sourceHandle: "output",
  target,
  targetHandle,
});

const before: Graph = {
  nodes: [
    n("a", "constant.number", { value: 1 }),
    n("b", "constant.number", { value: 2 }, { title: "Two" }),
    n("add", "math.add"),
    n("out", "workflow.output", { name: "sum" }),
  ],
  edges: [edge("e1", "a", "add", "a"), edge("e2", "b", "add", "b"), edge("e3", "add", "out", "value")],
};

describe("graph differences", () => {
  it("finds nodes only in one, inputs, titles and types changed, connections by what they join, and moves", () => {
    const after: Graph = {
      nodes: [
        n("a", "constant.number", { value: 5 }, { title: "Five" }),
        n("add", "math.subtract"),
        n("out", "workflow.output", { name: "sum" }, { position: { x: 300, y: 0 } }),
        n("c", "constant.number", { value: 3 }),
      ],
      // e3 is the same connection under another id: not a change.
      edges: [edge("e1", "a", "add", "a"), edge("x", "c", "add", "b"), edge("e9", "add", "out", "value")],
    };
    const diff = diffGraphs(before, after);
    expect(diff.removed.map((node) => node.id)).toEqual(["b"]);
    expect(diff.added.map((node) => node.id)).toEqual(["c"]);
    expect(diff.changed.map(({ node, fields }) => [node.id, fields])).toEqual([
      ["a", ["title", "value"]],
      ["add", ["type"]],
    ]);
    expect(diff.moved).toBe(1);
    expect(diff.edgesRemoved.map((e) => e.id)).toEqual(["e2"]);
    expect(diff.edgesAdded.map((e) => e.id)).toEqual(["x"]);
    expect(describeDiff(diff, "version 1", "the canvas")).toEqual([
      "Only in version 1: Two.",
      "Only in the canvas: Number.",
      "Changed: Five (title, value), Subtract (type).",
      "1 connection only in version 1, 1 connection only in the canvas.",
      "1 node moved.",
    ]);
  });

  it("says nothing for the same graph, and names the first few of many", () => {
    expect(describeDiff(diffGraphs(before, structuredClone(before)), "version 1", "the canvas")).toEqual([]);
    const many: Graph = {
      nodes: Array.from({ length: 9 }, (_, i) => n(`t${i}`, "constant.string", {}, { title: `T${i}` })),
      edges: [],
    };
    expect(describeDiff(diffGraphs({ nodes: [], edges: [] }, many), "version 2", "the canvas")).toEqual([
      "Only in the canvas: T0, T1, T2, T3, T4, T5 and 3 more.",
    ]);
    // An input set in one and absent (its default) in the other differs.
    const unset = diffGraphs(
      { nodes: [n("a", "constant.number")], edges: [] },
      { nodes: [n("a", "constant.number", { value: 0 })], edges: [] },
    );
    expect(unset.changed.map(({ fields }) => fields)).toEqual([["value"]]);
  });
});
