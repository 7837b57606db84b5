/**
 * The specs' output schemas: strict everywhere, `unknown` only where the user's own JSON goes (each
 * such field listed here, so a new one is a visible diff), and the page's own `ui` results (the shared
 * document operations) parse with them. That real results parse too is the ladder's output check, on
 * for every test (vite.config.ts), with the coverage check in tests/global-setup-coverage.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TestProject } from "vitest/node";
import { allSpecs, findSpec, outputJsonSchema } from "../../shared/capabilities/table.ts";
import type { Graph } from "../../shared/graph/document.ts";
import { applyOp, DOCUMENT_OPS } from "../../shared/graph/ops.ts";
import { checkCoverage, recordedNames, unexercised } from "../global-setup-coverage.ts";

type Node = { [key: string]: unknown };

/** Every schema node of a root, with its path (`properties.x`, `items`, ...), `$defs` included. */
function* nodes(schema: unknown, path: string): Generator<[string, Node]> {
  if (typeof schema !== "object" || schema === null) return;
  const node = schema as Node;
  yield [path, node];
  for (const [key, child] of Object.entries((node.properties as Node | undefined) ?? {})) {
    yield* nodes(child, `${path}.${key}`);
  }
  for (const key of ["items", "additionalProperties"]) yield* nodes(node[key], `${path}[${key}]`);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    for (const [i, child] of ((node[key] as unknown[] | undefined) ?? []).entries())
      yield* nodes(child, `${path}|${i}`);
  }
  for (const [name, def] of Object.entries((node.$defs as Node | undefined) ?? {})) {
    if (!name.startsWith("__schema")) yield* nodes(def, `#${name}`);
  }
}

const SAYS_SOMETHING = ["type", "anyOf", "oneOf", "allOf", "$ref", "const", "enum", "x-typescript"];

/** The user's own JSON: the only fields an output may leave `unknown`. */
const USER_JSON = [
  "#GraphNode.data[additionalProperties]",
  "#Job.inputs",
  "#Job.outputs|0[additionalProperties]",
  "#Job.nodes[items].outputs",
  "#WaitedJob.inputs",
  "#WaitedJob.nodes[items].outputs",
  "#WaitedJob.outputs|0[additionalProperties]",
  "read_shared.value",
  "run_node.outputs[additionalProperties]",
  "ui_update_node_data.data[additionalProperties]",
];

describe("output schemas", () => {
  it("every capability declares one, and every object in it is strict", () => {
    const loose: string[] = [];
    for (const spec of allSpecs()) {
      for (const [path, node] of nodes(outputJsonSchema(spec), spec.name)) {
        if (node.type === "object" && node.properties !== undefined && node.additionalProperties !== false)
          loose.push(path);
      }
    }
    expect(allSpecs().length).toBeGreaterThanOrEqual(49);
    expect(loose).toEqual([]);
  });

  it("leaves a field unknown only where the user's own JSON goes", () => {
    const unknown = new Set<string>();
    for (const spec of allSpecs()) {
      for (const [path, node] of nodes(outputJsonSchema(spec), spec.name)) {
        if (!SAYS_SOMETHING.some((key) => key in node)) unknown.add(path);
      }
    }
    // A named definition's path starts at its name, so it is listed once however many specs use it.
    expect([...unknown].sort()).toEqual([...USER_JSON].sort());
  });

  it("the shared document operations (what the page applies) answer what the ui specs declare", () => {
    const graph: Graph = {
      nodes: [
        { id: "a", type: "constant.string", data: { value: "hi" }, position: { x: 0, y: 0 } },
        { id: "b", type: "text.length", data: {}, position: { x: 200, y: 0 }, title: "Len" },
      ],
      edges: [{ id: "e1", source: "a", sourceHandle: "output", target: "b", targetHandle: "text" }],
    };
    const args: Record<(typeof DOCUMENT_OPS)[number], Record<string, unknown>> = {
      ui_get_graph: {},
      ui_add_node: { node_type: "text.template", data: { template: "x" } },
      ui_connect_nodes: { source: "b", source_handle: "output", target: "a", target_handle: "in" },
      ui_update_node_data: { node_id: "a", data: { value: "ho" } },
      ui_delete_node: { node_id: "a" },
      ui_delete_edge: { edge_id: "e1" },
      ui_move_node: { node_id: "b", x: 5, y: 6 },
      ui_set_node_title: { node_id: "b", title: "Length" },
      ui_copy: { node_ids: ["a", "b"] },
      ui_paste: { fragment: { nodes: graph.nodes, edges: graph.edges }, offset: { x: 40, y: 40 } },
    };
    for (const op of DOCUMENT_OPS) {
      const result = applyOp(graph, op, args[op]);
      expect(result.ok, op).toBe(true);
      const spec = findSpec(op);
      if (!result.ok || !spec) throw new Error(op);
      const parsed = spec.output.safeParse(result.value);
      expect(parsed.success ? [] : parsed.error.issues, op).toEqual([]);
    }
  });
});

describe("capability coverage records", () => {
  it("counts what the processes recorded, and finds every capability missing when nothing was", () => {
    const dir = mkdtempSync(join(tmpdir(), "nt-coverage-test-"));
    try {
      expect(unexercised(recordedNames(dir))).toEqual(allSpecs().map((s) => s.name));
      writeFileSync(join(dir, "1.txt"), "list_workflows\nsave_memory\n");
      writeFileSync(join(dir, "2.txt"), "save_memory\n");
      const missing = unexercised(recordedNames(dir));
      expect(missing).not.toContain("list_workflows");
      expect(missing).not.toContain("save_memory");
      expect(missing).toHaveLength(allSpecs().length - 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails a full run in which nothing was recorded, passes one that exercised all, and skips a partial one", async () => {
    // Only what the check reads of vitest's project: the configured env, the test files, the files run.
    const project = (files: string[], ran: string[]) =>
      ({
        config: { env: { CHECK_CAPABILITY_OUTPUTS: "1" } },
        globTestFiles: async () => ({ testFiles: files, typecheckTestFiles: [] }),
        vitest: { state: { getFiles: () => ran.map((filepath) => ({ filepath })) } },
      }) as unknown as TestProject;
    const verdicts: string[] = [];
    const report = {
      fail: (r: string) => verdicts.push(`fail: ${r}`),
      note: (t: string) => verdicts.push(`note: ${t}`),
    };
    const dir = mkdtempSync(join(tmpdir(), "nt-coverage-test-"));
    try {
      await checkCoverage(project(["/a.test.ts"], ["/a.test.ts"]), dir, report);
      await checkCoverage(project(["/a.test.ts", "/b.test.ts"], ["/a.test.ts"]), dir, report);
      writeFileSync(
        join(dir, "7.txt"),
        `${allSpecs()
          .map((s) => s.name)
          .join("\n")}\n`,
      );
      await checkCoverage(project(["/a.test.ts"], ["/a.test.ts"]), dir, report);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(verdicts[0]).toContain(`fail: ${allSpecs().length} capabilities were never called`);
    expect(verdicts[0]).toContain("list_workflows, get_workflow");
    expect(verdicts[1]).toMatch(/^note: not checked \(1 test files did not run\)/);
    expect(verdicts[2]).toBe(`note: all ${allSpecs().length} capabilities exercised`);
    expect(verdicts).toHaveLength(3);
  });
});
