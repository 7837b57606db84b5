/** Workflow files (web/src/editor/workflow-file.ts): what Export writes, Import reads back, and what it refuses. */
import { describe, expect, it } from "vitest";
import {
  clipboardText,
  readClipboard,
  readWorkflowFile,
  WORKFLOW_FILE_FORMAT,
  workflowFile,
} from "../../web/src/editor/workflow-file.ts";

const graph = {
  nodes: [
    { id: "a", type: "math.add", data: { a: 1 }, position: { x: 0, y: 0 } },
    { id: "b", type: "text.length", data: {}, position: { x: 200, y: 0 } },
  ],
  edges: [],
};

describe("workflow files", () => {
  it("round-trips a workflow: its name, description and graph", () => {
    const { fileName, text } = workflowFile({ name: "Sums", description: "adds" }, graph);
    expect(fileName).toBe("Sums.json");
    expect(JSON.parse(text).format).toBe(WORKFLOW_FILE_FORMAT);
    expect(readWorkflowFile(text, "renamed.json")).toEqual({ name: "Sums", description: "adds", graph });
  });

  it("names the file without what file systems refuse, and a bare graph after its file", () => {
    expect(workflowFile({ name: 'a/b: "c"?\u0007', description: "" }, graph).fileName).toBe("a b c.json");
    expect(workflowFile({ name: "///", description: "" }, graph).fileName).toBe("workflow.json");
    expect(readWorkflowFile(JSON.stringify(graph), "From disk.JSON")).toMatchObject({
      name: "From disk",
      description: "",
    });
  });

  it("fills what a graph may leave out (data, position) as the store does", () => {
    const read = readWorkflowFile(JSON.stringify({ nodes: [{ id: "a", type: "math.add" }] }), "g.json");
    expect(read).toMatchObject({ graph: { nodes: [{ id: "a", data: {}, position: { x: 0, y: 0 } }], edges: [] } });
  });

  it("refuses, saying what and where: not JSON, no graph, a bad shape, a broken graph, an unknown type", () => {
    const error = (text: string) => {
      const read = readWorkflowFile(text, "f.json");
      return "error" in read ? read.error : "accepted";
    };
    expect(error("{")).toMatch(/^f\.json cannot be imported: it is not JSON \(/);
    expect(error('"text"')).toMatch(/it holds no workflow/);
    expect(error("{}")).toMatch(/it holds no workflow/);
    expect(error(JSON.stringify({ graph: { nodes: [{ id: "", type: "math.add" }] } }))).toMatch(
      /graph\.nodes\.0\.id: /,
    );
    expect(error(JSON.stringify({ nodes: "many" }))).toMatch(/it holds no workflow/);
    const twice = { nodes: [graph.nodes[0], graph.nodes[0]], edges: [] };
    expect(error(JSON.stringify(twice))).toMatch(/node id "a" is used twice/);
    const dangling = {
      ...graph,
      edges: [{ id: "e", source: "a", sourceHandle: "output", target: "z", targetHandle: "a" }],
    };
    expect(error(JSON.stringify(dangling))).toMatch(/names node "z", which does not exist/);
    const alien = { nodes: Array.from({ length: 5 }, (_, i) => ({ id: `n${i}`, type: "alien" })), edges: [] };
    expect(error(JSON.stringify(alien))).toMatch(
      /node "n0" has type "alien", which is not a node type here; .* \(and 2 more\)\.$/,
    );
  });

  it("reads nodes from a paste: a copy, a graph or a workflow file; refuses a broken graph; leaves other text alone", () => {
    const copy = clipboardText(graph);
    expect(readClipboard(copy)).toEqual({ nodes: graph.nodes, edges: graph.edges });
    expect(readClipboard(workflowFile({ name: "W", description: "" }, graph).text)).toEqual({
      nodes: graph.nodes,
      edges: graph.edges,
    });
    // The copy is itself a file Import opens.
    expect(readWorkflowFile(copy, "copy.json")).toMatchObject({ name: "copy", graph });
    for (const text of ["just words", "42", '"a string"', "[1, 2]", "{}", JSON.stringify({ name: "no graph" })]) {
      expect(readClipboard(text)).toBeUndefined();
    }
    const alien = { nodes: [{ id: "x", type: "alien" }], edges: [] };
    expect(readClipboard(JSON.stringify(alien))).toEqual({
      error: 'What you pasted cannot be pasted: node "x" has type "alien", which is not a node type here.',
    });
  });
});
