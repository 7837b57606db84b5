/** The workflow document model: the graph schema, the structural report and the DOT export. */
import { describe, expect, it } from "vitest";
import { findCycle, Graph, type GraphEdge, toDigraph, validateGraph } from "../../shared/graph/document.ts";

const node = (id: string, type = "nodetool.Constant") => ({ id, type, data: {}, position: { x: 0, y: 0 } });
const edge = (id: string, source: string, target: string): GraphEdge => ({
  id,
  source,
  sourceHandle: "output",
  target,
  targetHandle: "input",
});

describe("Graph schema", () => {
  it("fills defaults for nodes and the graph", () => {
    expect(Graph.parse({ nodes: [{ id: "a", type: "t" }] })).toEqual({
      nodes: [{ id: "a", type: "t", data: {}, position: { x: 0, y: 0 } }],
      edges: [],
    });
  });

  it("refuses an edge without handles", () => {
    expect(Graph.safeParse({ edges: [{ id: "e", source: "a", target: "b" }] }).success).toBe(false);
  });
});

describe("validateGraph", () => {
  it("a well-formed DAG is valid", () => {
    const graph = { nodes: [node("a"), node("b"), node("c")], edges: [edge("e1", "a", "b"), edge("e2", "b", "c")] };
    expect(validateGraph(graph)).toEqual({ valid: true, problems: [] });
  });

  it("reports duplicate ids, edges to unknown nodes and cycles", () => {
    const graph = {
      nodes: [node("a"), node("a"), node("b")],
      edges: [edge("e1", "a", "b"), edge("e1", "b", "a"), edge("e3", "b", "ghost")],
    };
    const report = validateGraph(graph);
    expect(report.valid).toBe(false);
    expect(report.problems.map((p) => p.kind).sort()).toEqual([
      "cycle",
      "duplicate_edge_id",
      "duplicate_node_id",
      "unknown_node",
    ]);
    expect(report.problems.find((p) => p.kind === "unknown_node")?.message).toContain('"ghost"');
  });
});

describe("findCycle", () => {
  it("returns the cycle with its first node repeated at the end", () => {
    const graph = { nodes: [], edges: [edge("1", "a", "b"), edge("2", "b", "c"), edge("3", "c", "b")] };
    expect(findCycle(graph)).toEqual(["b", "c", "b"]);
  });

  it("finds a self-loop", () => {
    expect(findCycle({ nodes: [], edges: [edge("1", "a", "a")] })).toEqual(["a", "a"]);
  });

  it("walks a very deep chain without overflowing the stack", () => {
    const depth = 20_000; // about twice what a recursive walk survives on a default Node stack
    const edges = Array.from({ length: depth }, (_, i) => edge(`e${i}`, `n${i}`, `n${i + 1}`));
    expect(findCycle({ nodes: [], edges })).toBeNull();
    edges.push(edge("back", `n${depth}`, "n0"));
    expect(findCycle({ nodes: [], edges })).toHaveLength(depth + 2);
  });
});

describe("toDigraph", () => {
  it("quotes ids and labels so names cannot break out of the DOT string", () => {
    const graph = {
      nodes: [{ ...node('a"b'), title: "Line\nbreak" }, node("c\\d")],
      edges: [edge("e", 'a"b', "c\\d")],
    };
    expect(toDigraph('My "flow"', graph)).toBe(
      [
        'digraph "My \\"flow\\"" {',
        "  rankdir=LR;",
        '  "a\\"b" [label="Line\\nbreak (nodetool.Constant)"];',
        '  "c\\\\d" [label="nodetool.Constant"];',
        '  "a\\"b" -> "c\\\\d" [label="output -> input"];',
        "}",
      ].join("\n"),
    );
  });
});
