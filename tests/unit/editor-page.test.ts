/**
 * The editor page's own logic, without a browser: the store with versions saved elsewhere (a clean
 * canvas takes a newer version as one undo step, a draft keeps its base version and learns of the newer
 * one, an earlier version replaces the canvas as one undo step); the run outcome's one-line values and
 * the failure question; a past run's inputs put back in the run fields; run inputs that take an asset;
 * what the agent is told of the editor; a value as text to copy.
 */
import { describe, expect, it } from "vitest";
import type { Graph, Workflow } from "../../shared/graph/document.ts";
import { AssetRef } from "../../shared/protocol/values.ts";
import { aboutFailure } from "../../web/src/agent-asks.ts";
import { dispositionName } from "../../web/src/asset-names.ts";
import { editorContext } from "../../web/src/editor/agent-context.ts";
import { inputValues, runInputs } from "../../web/src/editor/RunInputs.tsx";
import { fieldsOf } from "../../web/src/editor/run-fields.ts";
import { EditorStore } from "../../web/src/editor/store.ts";
import { copyableText, valuesLine } from "../../web/src/panel/ValueView.tsx";

const graphOf = (...ids: string[]): Graph => ({
  nodes: ids.map((id) => ({ id, type: "constant.number", data: {}, position: { x: 0, y: 0 } })),
  edges: [],
});
const workflow = (version: number, graph: Graph): Workflow => ({
  id: "wf_1",
  name: "w",
  description: "",
  graph,
  version,
  created_at: "",
  updated_at: "",
});
const ids = (store: EditorStore) => store.getSnapshot().graph.nodes.map((n) => n.id);

describe("versions saved elsewhere, in the editor store", () => {
  it("shows a newer version on a clean canvas as one undo step: Undo brings back what was there, as a draft", () => {
    const store = new EditorStore();
    store.open(workflow(1, graphOf("a")));
    store.savedElsewhere(workflow(2, graphOf("a", "b")));
    expect(ids(store)).toEqual(["a", "b"]);
    expect(store.getSnapshot()).toMatchObject({ dirty: false, canUndo: true, workflow: { version: 2 } });
    store.undo();
    expect(ids(store)).toEqual(["a"]);
    expect(store.getSnapshot().dirty).toBe(true);
    // Only the details changed (a rename elsewhere): no undo step.
    const renamed = new EditorStore();
    renamed.open(workflow(1, graphOf("a")));
    renamed.savedElsewhere({ ...workflow(2, graphOf("a")), name: "renamed" });
    expect(renamed.getSnapshot()).toMatchObject({ canUndo: false, workflow: { name: "renamed", version: 2 } });
  });

  it("keeps a draft on its base version and says a newer one exists, until a save or an open settles it", () => {
    const store = new EditorStore();
    store.open(workflow(4, graphOf("theirs")), { graph: graphOf("mine"), version: 3 });
    expect(ids(store)).toEqual(["mine"]);
    expect(store.getSnapshot()).toMatchObject({ dirty: true, newer: 4, workflow: { version: 3 } });
    // Older or the same: nothing new to say.
    store.newerElsewhere("wf_1", 3);
    store.newerElsewhere("wf_other", 9);
    expect(store.getSnapshot().newer).toBe(4);
    store.markSaved(workflow(5, graphOf("mine")));
    expect(store.getSnapshot()).toMatchObject({ dirty: false, newer: undefined, workflow: { version: 5 } });
    // A draft on the stored version (or one of unknown base) is simply the draft.
    store.open(workflow(5, graphOf("mine")), { graph: graphOf("mine", "more"), version: 5 });
    expect(store.getSnapshot()).toMatchObject({ newer: undefined, workflow: { version: 5 } });
    store.open(workflow(5, graphOf("mine")), { graph: graphOf("x"), version: 0 });
    expect(store.getSnapshot()).toMatchObject({ newer: undefined, workflow: { version: 5 } });
  });

  it("replaces the canvas with an earlier version's graph as one undo step", () => {
    const store = new EditorStore();
    store.open(workflow(3, graphOf("now")));
    store.replace(graphOf("then"));
    expect(ids(store)).toEqual(["then"]);
    expect(store.getSnapshot()).toMatchObject({ dirty: true, workflow: { version: 3 } });
    store.undo();
    expect(ids(store)).toEqual(["now"]);
    expect(store.getSnapshot().dirty).toBe(false);
  });
});

describe("a run's outcome in words", () => {
  it("puts each output in one line, cut short; an asset by its id", () => {
    expect(valuesLine({ answer: 42, note: "x".repeat(100) })).toBe(`answer: 42, note: "${"x".repeat(38)}…`);
    expect(valuesLine({ image: new AssetRef("ast_1") })).toBe("image: asset ast_1");
    expect(valuesLine({})).toBe("no outputs");
    expect(valuesLine([1, 2])).toBe("[1,2]");
    expect(valuesLine({ $truncated: true, chars: 5000 })).toBe("5000 characters, too long to list");
    // An asset by its name where it is known: a reference, or a picked input's id (text); others as they are.
    const id = `ast_${"0f".repeat(16)}`;
    const nameOf = (asked: string) => (asked === id ? "red.png" : undefined);
    expect(valuesLine({ photo: id, other: `ast_${"1".repeat(32)}` }, undefined, nameOf)).toBe(
      `photo: red.png, other: "ast_${"1".repeat(32)}"`,
    );
    expect(valuesLine({ image: new AssetRef(id), n: 2 }, undefined, nameOf)).toBe("image: red.png, n: 2");
    expect(valuesLine({ images: [new AssetRef(id)] }, undefined, nameOf)).toBe('images: ["red.png"]');
    // Rows by their count and columns, not as JSON cut short.
    const rows = [
      { item: "tea", price: 3 },
      { item: "cake", price: 4.5 },
    ];
    expect(valuesLine({ drinks: rows, total: 7.5 })).toBe("drinks: 2 rows (item, price), total: 7.5");
    expect(valuesLine({ one: rows.slice(0, 1) })).toBe("one: 1 row (item, price)");
    expect(valuesLine(rows)).toBe("2 rows (item, price)");
    expect(valuesLine({ many: Array.from({ length: 1000 }, (_, n) => ({ n })) })).toBe("many: 1000 rows (n)");
    expect(valuesLine({ list: [{ a: { nested: 1 } }] })).toBe('list: [{"a":{"nested":1}}]');
  });

  it("begins a question about a failure with the workflow, the node and the error", () => {
    expect(aboutFailure("Sum", { code: "capability_failed", message: "b is 0", node_id: "div" })).toBe(
      'The job of the workflow "Sum" failed at node "div": capability_failed: b is 0 ',
    );
    expect(aboutFailure("Sum", { code: "cancelled", message: "stopped" })).toBe(
      'The job of the workflow "Sum" failed: cancelled: stopped ',
    );
  });
});

describe("an asset's name from the answer to its address", () => {
  it("takes the exact UTF-8 name, else the plain one", () => {
    expect(
      dispositionName(`inline; filename="rapport _t_.txt"; filename*=UTF-8''rapport%20%22%C3%A9t%C3%A9%22.txt`),
    ).toBe('rapport "été".txt');
    expect(dispositionName('attachment; filename="plain.csv"')).toBe("plain.csv");
    expect(dispositionName("attachment; filename*=UTF-8''%E0%A4%A.txt; filename=\"fallback.txt\"")).toBe(
      "fallback.txt",
    );
    expect(dispositionName(null)).toBeUndefined();
    expect(dispositionName("attachment")).toBeUndefined();
  });
});

describe("a past run's inputs as the run input fields show them", () => {
  it("keeps text as itself, quotes text that would read as JSON, an asset as its id, other values as JSON", () => {
    const fields = fieldsOf({ who: "Ada", n: 42, text42: "42", empty: "", list: [1, "a"], on: true });
    expect(fields).toEqual({ who: "Ada", n: "42", text42: '"42"', empty: '""', list: '[1,"a"]', on: "true" });
    // Read back as RunInputs reads them, each is the value the run was given.
    const inputs = Object.keys(fields ?? {}).map((name) => ({ name, fallback: undefined }));
    expect(inputValues({ ...fields }, inputs)).toEqual({
      who: "Ada",
      n: 42,
      text42: "42",
      empty: "",
      list: [1, "a"],
      on: true,
    });
    // An asset is its id, as an asset field holds it.
    expect(fieldsOf({ image: new AssetRef("ast_1") })).toEqual({ image: "ast_1" });
    expect(fieldsOf({ deep: { bytes: new Uint8Array([1]) } })).toBeUndefined();
    expect(fieldsOf({ $truncated: true, chars: 9000 })).toBeUndefined();
    expect(fieldsOf(null)).toBeUndefined();
  });
});

describe("what the agent is told of the editor with each message", () => {
  it("names the open workflow, its version, unsaved changes, size and the selected nodes, quoting and cutting names", () => {
    const store = new EditorStore();
    expect(editorContext({ store, selection: [] })).toBe("The editor has no workflow open.");
    const graph = graphOf("a", "b");
    const [a] = graph.nodes;
    if (a) a.title = `Sum ${"x".repeat(100)} "quoted"`;
    store.open({ ...workflow(3, graph), name: "Totals" });
    expect(editorContext({ store, selection: ["b", "gone"] })).toBe(
      'The editor has the workflow "Totals" (wf_1) open: version 3, 2 nodes, 0 connections. Selected: b ("Number").',
    );
    store.open({ ...workflow(3, graphOf("a")), name: "Totals" }, { graph, version: 3 });
    const told = editorContext({ store, selection: ["a"] });
    expect(told).toContain("version 3 with unsaved changes, 2 nodes");
    expect(told).toContain(`Selected: a ("Sum ${"x".repeat(75)}…").`);
    const many = graphOf(...Array.from({ length: 12 }, (_, i) => `n${i}`));
    store.open({ ...workflow(1, many), name: "Many" });
    expect(editorContext({ store, selection: many.nodes.map((n) => n.id) })).toMatch(/n9 \("Number"\) and 2 more\.$/);
  });
});

describe("run inputs that take an asset", () => {
  it("picks an asset for an input that feeds only image (or audio, file) inputs, and passes its id", () => {
    const at = { x: 0, y: 0 };
    const graph: Graph = {
      nodes: [
        { id: "photo", type: "workflow.input", data: { name: "photo" }, position: at },
        { id: "width", type: "workflow.input", data: { name: "width", default: 16 }, position: at },
        { id: "resize", type: "image.resize", data: {}, position: at },
        { id: "both", type: "workflow.input", data: { name: "both" }, position: at },
        { id: "out", type: "workflow.output", data: { name: "x" }, position: at },
      ],
      edges: [
        { id: "a", source: "photo", sourceHandle: "output", target: "resize", targetHandle: "image" },
        { id: "b", source: "width", sourceHandle: "output", target: "resize", targetHandle: "width" },
        // One that feeds an any-typed input is text.
        { id: "c", source: "both", sourceHandle: "output", target: "out", targetHandle: "value" },
      ],
    };
    const inputs = runInputs(graph);
    expect(inputs.map((input) => [input.name, input.asset])).toEqual([
      ["photo", "image"],
      ["width", undefined],
      ["both", undefined],
    ]);
    // The asset field's id stays text (the engine takes an asset id), even one that would read as JSON.
    expect(inputValues({ photo: "ast_1", width: "32", both: "7" }, inputs)).toEqual({
      photo: "ast_1",
      width: 32,
      both: 7,
    });
  });
});

describe("a value as text to copy", () => {
  it("keeps a string as it is, indents anything else as JSON (an asset as its id), and has nothing for a cut value", () => {
    expect(copyableText("plain text")).toBe("plain text");
    expect(copyableText({ image: new AssetRef("ast_1"), n: 2 })).toBe('{\n  "image": "ast_1",\n  "n": 2\n}');
    expect(copyableText(new Uint8Array(3))).toBe('"3 bytes"');
    expect(copyableText(null)).toBe("null");
    expect(copyableText({ $truncated: true, chars: 9000 })).toBeUndefined();
  });
});
