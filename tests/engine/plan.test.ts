/** Graph validation before a run: each problem names its node (and edge) and what to change. */
import { describe, expect, it } from "vitest";
import { planGraph } from "../../server-bridge/engine/plan.ts";
import type { Graph } from "../../shared/graph/document.ts";
import { edge, node } from "./support.ts";

function problems(graph: Graph): string[] {
  const result = planGraph(graph);
  if (result.ok) throw new Error("expected problems");
  return result.problems.map((p) => p.message);
}

describe("planGraph", () => {
  it("plans a valid graph: dependency counts, dependents, literals from data and defaults", () => {
    const result = planGraph({
      nodes: [node("a", "constant.number", { value: 2 }), node("b", "math.add", { b: 3 })],
      edges: [edge("a", "b", "a")],
    });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const [a, b] = result.plan.nodes;
    expect(a).toMatchObject({ upstream: 0, dependents: [1], literals: { value: 2 } });
    expect(b).toMatchObject({ upstream: 1, dependents: [], literals: { b: 3 } });
    expect(b?.wires).toEqual([{ input: "a", source: 0, handle: "output" }]);
  });

  it("names unknown node types with a near name", () => {
    expect(problems({ nodes: [node("n1", "text.templat")], edges: [] })).toEqual([
      expect.stringMatching(/node "n1" has unknown type "text.templat". Did you mean "text.template"/),
    ]);
  });

  it("refuses missing handles, incompatible types, a second edge into one input, edges into properties", () => {
    const found = problems({
      nodes: [
        node("s", "constant.string", { value: "x" }),
        node("n", "constant.number", { value: 1 }),
        node("add", "math.add"),
        node("len", "text.length"),
        node("in", "workflow.input", { name: "q" }),
      ],
      edges: [
        edge("s", "add", "a"),
        edge("n", "len", "text"),
        edge("n", "add", "c"),
        edge("s", "len", "text", "out"),
        edge("n", "add", "b"),
        edge("n", "add", "b"),
        edge("s", "in", "name"),
      ],
    });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/output "output" of "s" is string, input "a" of "add" takes number/),
        expect.stringMatching(/output "output" of "n" is number, input "text" of "len" takes string/),
        expect.stringMatching(/node "add" \(math.add\) has no input "c"/),
        expect.stringMatching(/node "s" \(constant.string\) has no output "out"; its outputs: "output"/),
        expect.stringMatching(/input "b" of node "add" already has an edge/),
        expect.stringMatching(/node "in" \(workflow.input\) has no input "name" to connect/),
      ]),
    );
  });

  it("refuses required inputs neither connected nor set, bad literal values, unfilled slots and variables", () => {
    const result = planGraph({
      nodes: [
        node("len", "text.length"),
        node("clamp", "math.clamp", { value: "7" }),
        node("tpl", "text.template", { template: "{{a}} and {{b}}", a: 1 }),
        node("expr", "math.expression", { expression: "x + y", x: 1 }),
        node("bad", "math.expression", { expression: "1 +" }),
        { ...node("out", "workflow.output"), title: "Answer" },
      ],
      edges: [],
    });
    if (result.ok) throw new Error("expected problems");
    // Each reads as the editor shows the node (its title; its id only when two read the same) and the
    // field (its label), never as graph internals; where it is travels beside it as a path.
    expect(result.problems.map((p) => p.message)).toEqual([
      'Text length: "text" (the text) is required; connect a node to it or fill it in.',
      'Clamp: "value" expects a number, got string.',
      'Template: slot {{b}} has no value; connect a node to input "b" or fill it in.',
      'Expression (expr): variable "y" has no value; connect a node to input "y" or fill it in.',
      expect.stringMatching(/^Expression \(bad\): Expression "1 \+" is not valid/),
      `Answer: "name" (the output's name) is required; fill it in.`,
      'Answer: "value" (the result) is required; connect a node to it or fill it in.',
    ]);
    expect(result.problems.map((p) => p.message).join(" ")).not.toMatch(/data\.|\bdata\b/);
    expect(result.problems.filter((p) => p.node_id === "out").map((p) => p.path)).toEqual([
      "nodes.out.data.name",
      "nodes.out.data.value",
    ]);
  });

  it("refuses cycles and duplicate output names", () => {
    expect(
      problems({
        nodes: [node("a", "math.add"), node("b", "math.add")],
        edges: [edge("a", "b", "a"), edge("b", "a", "a")],
      }),
    ).toEqual([expect.stringMatching(/cycle: a -> b -> a|cycle: b -> a -> b/)]);
    expect(
      problems({
        nodes: [
          node("o1", "workflow.output", { name: "r", value: 1 }),
          node("o2", "workflow.output", { name: "r", value: 2 }),
        ],
        edges: [],
      }),
    ).toEqual(['Workflow output (o2): another Workflow output node is named "r" too; give each its own name.']);
  });

  it("refuses a dynamic input that is not an identifier", () => {
    expect(
      problems({
        nodes: [node("n", "constant.json", { value: {} }), node("tpl", "text.template", { template: "x" })],
        edges: [edge("n", "tpl", "__proto__")],
      }),
    ).toEqual([expect.stringMatching(/node "tpl" \(text.template\) has no input "__proto__" to connect/)]);
  });

  it("connects dynamic inputs: template slots and expression variables", () => {
    const result = planGraph({
      nodes: [
        node("n", "constant.number", { value: 2 }),
        node("tpl", "text.template", { template: "{{count}} items" }),
        node("expr", "math.expression", { expression: "k * 2" }),
      ],
      edges: [edge("n", "tpl", "count"), edge("n", "expr", "k")],
    });
    expect(result.ok).toBe(true);
  });
});
