/**
 * The editor's pure parts: undo groups in the store (an action's edits are one step, a field's
 * keystrokes are one step), connection checks and the palette's filter from handle types, the auto
 * layout's left-to-right order, a duplicate's name, a question about nodes for the agent, and the
 * approval dialog's view of image arguments.
 */
import { describe, expect, it } from "vitest";
import type { Workflow } from "../../shared/graph/document.ts";
import { aboutNodes } from "../../web/src/agent-asks.ts";
import { copyName } from "../../web/src/editor/controller.ts";
import { compatibleTypes, connectionRefusal, inputHandles } from "../../web/src/editor/handles.ts";
import { autoLayout } from "../../web/src/editor/layout.ts";
import { EditorStore } from "../../web/src/editor/store.ts";
import { describeArgs, imageFormat } from "../../web/src/panel/approval-args.ts";

const workflow = (): Workflow => ({
  id: "wf_1",
  name: "w",
  description: "",
  graph: { nodes: [], edges: [] },
  version: 1,
  created_at: "",
  updated_at: "",
});

describe("the editor store's undo groups", () => {
  it("makes one step of a group's edits, and a new step for anything else", () => {
    const store = new EditorStore();
    store.open(workflow());
    store.apply("ui_add_node", { node_type: "constant.number", node_id: "a" }, { group: "action:run_1" });
    store.apply("ui_add_node", { node_type: "math.add", node_id: "b" }, { group: "action:run_1" });
    store.apply(
      "ui_connect_nodes",
      { source: "a", source_handle: "output", target: "b", target_handle: "a" },
      { group: "action:run_1" },
    );
    store.apply("ui_update_node_data", { node_id: "a", data: { value: 4 } }, { group: "field:a:value" });
    store.apply("ui_update_node_data", { node_id: "a", data: { value: 40 } }, { group: "field:a:value" });
    store.endGroup();
    store.apply("ui_update_node_data", { node_id: "a", data: { value: 41 } }, { group: "field:a:value" });

    const values = () => store.getSnapshot().graph.nodes.find((n) => n.id === "a")?.data.value;
    expect(values()).toBe(41);
    store.undo();
    expect(values()).toBe(40);
    store.undo();
    expect(values()).toBeUndefined();
    expect(store.getSnapshot().graph.nodes).toHaveLength(2);
    store.undo();
    expect(store.getSnapshot().graph).toEqual({ nodes: [], edges: [] });
    expect(store.getSnapshot().canUndo).toBe(false);
    store.redo();
    expect(store.getSnapshot().graph.edges).toHaveLength(1);
  });

  it("starts a new step after an undo, even in the same group", () => {
    const store = new EditorStore();
    store.open(workflow());
    store.apply("ui_add_node", { node_type: "constant.number", node_id: "a" }, { group: "g" });
    store.apply("ui_add_node", { node_type: "constant.number", node_id: "b" }, { group: "g" });
    store.undo();
    store.redo();
    store.apply("ui_add_node", { node_type: "constant.number", node_id: "c" }, { group: "g" });
    store.undo();
    expect(store.getSnapshot().graph.nodes.map((n) => n.id)).toEqual(["a", "b"]);
  });
});

describe("handle types on the canvas", () => {
  const graph = {
    nodes: [
      { id: "n", type: "constant.number", data: {}, position: { x: 0, y: 0 } },
      { id: "len", type: "text.length", data: {}, position: { x: 0, y: 0 } },
      { id: "img", type: "image.grayscale", data: {}, position: { x: 0, y: 0 } },
      { id: "add", type: "math.add", data: {}, position: { x: 0, y: 0 } },
      { id: "tpl", type: "text.template", data: { template: "Hi {{who}}" }, position: { x: 0, y: 0 } },
    ],
    edges: [{ id: "e1", source: "n", sourceHandle: "output", target: "add", targetHandle: "a" }],
  };

  it("refuses what does not fit, with the reason, and an input already taken", () => {
    expect(
      connectionRefusal(graph, { source: "n", sourceHandle: "output", target: "len", targetHandle: "text" }),
    ).toMatch(/^Not connected: A number output does not fit an input that takes a string/);
    expect(
      connectionRefusal(graph, { source: "img", sourceHandle: "output", target: "add", targetHandle: "b" }),
    ).toMatch(/An image output connects only to an input that takes an image/);
    expect(connectionRefusal(graph, { source: "n", sourceHandle: "output", target: "add", targetHandle: "a" })).toMatch(
      /already has an edge/,
    );
    expect(connectionRefusal(graph, { source: "n", sourceHandle: "output", target: "add", targetHandle: "b" })).toBe(
      undefined,
    );
    expect(connectionRefusal(graph, { source: "n", sourceHandle: "output", target: "tpl", targetHandle: "who" })).toBe(
      undefined,
    );
    expect(inputHandles("text.template", { template: "{{a}} {{b.c}}" }).map((h) => h.name)).toEqual([
      "template",
      "a",
      "b",
    ]);
  });

  it("offers, for a dragged image output, only node types with an input that takes an image", () => {
    const offered = compatibleTypes("image", "source").map((c) => c.type.id);
    expect(offered).toContain("image.resize");
    expect(offered).toContain("workflow.output");
    expect(offered).not.toContain("math.add");
    expect(offered).not.toContain("text.length");
    const toNumber = compatibleTypes("number", "target");
    expect(toNumber.find((c) => c.type.id === "constant.number")?.handle).toBe("output");
  });
});

describe("auto layout", () => {
  it("places every node right of the nodes it reads from", () => {
    const graph = {
      nodes: ["out", "add", "a", "b"].map((id) => ({ id, type: "math.add", data: {}, position: { x: 0, y: 0 } })),
      edges: [
        { id: "1", source: "a", sourceHandle: "output", target: "add", targetHandle: "a" },
        { id: "2", source: "b", sourceHandle: "output", target: "add", targetHandle: "b" },
        { id: "3", source: "add", sourceHandle: "output", target: "out", targetHandle: "a" },
      ],
    };
    const moves = new Map(autoLayout(graph, new Map()).map((m) => [m.node_id, m]));
    const x = (id: string) => moves.get(id)?.x ?? 0;
    expect(x("a")).toBeLessThan(x("add"));
    expect(x("b")).toBeLessThan(x("add"));
    expect(x("add")).toBeLessThan(x("out"));
    expect(moves.get("a")?.y).not.toBe(moves.get("b")?.y);
  });

  it("stands the node feeding an upper input above the one feeding a lower input, so their edges do not cross", () => {
    const number = (id: string) => ({ id, type: "constant.number", data: {}, position: { x: 0, y: 0 } });
    const a = { id: "1", source: "a", sourceHandle: "output", target: "sum", targetHandle: "a" };
    const b = { id: "2", source: "b", sourceHandle: "output", target: "sum", targetHandle: "b" };
    const sum = { id: "sum", type: "math.add", data: {}, position: { x: 0, y: 0 } };
    for (const graph of [
      { nodes: [number("a"), number("b"), sum], edges: [a, b] },
      { nodes: [number("b"), number("a"), sum], edges: [b, a] },
      { nodes: [sum, number("a"), number("b")], edges: [b, a] },
    ]) {
      const moves = new Map(autoLayout(graph, new Map()).map((m) => [m.node_id, m]));
      // A node left where it was (0, 0) makes no move.
      const at = (id: string) => moves.get(id) ?? { x: 0, y: 0 };
      const [ya, yb] = [at("a").y, at("b").y];
      expect(at("a").x).toBe(at("b").x);
      // Above, and not overlapping: a number node is at least 60 px tall.
      expect(yb - ya).toBeGreaterThanOrEqual(60);
    }
  });
});

describe("the name of a duplicated workflow", () => {
  it("is `(copy)`, then `(copy 2)`, `(copy 3)`; a copy's copy counts on from its original's name", () => {
    expect(copyName("Demo", ["Demo"])).toBe("Demo (copy)");
    expect(copyName("Demo", ["Demo", "Demo (copy)"])).toBe("Demo (copy 2)");
    expect(copyName("Demo (copy)", ["Demo", "Demo (copy)", "Demo (copy 2)"])).toBe("Demo (copy 3)");
    expect(copyName("Demo (copy 2)", ["Demo (copy 2)"])).toBe("Demo (copy)");
  });
});

describe("a question about nodes, begun for the agent", () => {
  it("names each node by id, title and type, and the workflow", () => {
    expect(aboutNodes("Demo", [{ id: "a", type: "math.add" }])).toBe(
      'About the node "a" (math.add) in the workflow "Demo": ',
    );
    expect(
      aboutNodes("Demo", [
        { id: "a", type: "math.add", title: "Sum" },
        { id: "b", type: "text.length" },
      ]),
    ).toBe('About the nodes "a" (Sum, math.add), "b" (text.length) in the workflow "Demo": ');
    expect(aboutNodes("Demo", [])).toBe('About the workflow "Demo": ');
  });
});

describe("image arguments in the approval dialog", () => {
  it("replaces image bytes by a label and a thumbnail, and other bytes by their size", () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]).toString("base64");
    expect(imageFormat(png)).toBe("png");
    const { text, images } = describeArgs({
      name: "x.png",
      content: { $bytes: png },
      other: { $bytes: Buffer.from("plain text").toString("base64") },
    });
    expect(text).toContain('"content": "[image 1: png, 12 B]"');
    expect(text).toContain('"other": "[10 B of bytes]"');
    expect(text).not.toContain(png);
    expect(images).toEqual([{ label: "image 1: png, 12 B", src: `data:image/png;base64,${png}` }]);
    expect(describeArgs({ asset_id: "ast_1" }).images).toEqual([
      { label: "image 1: asset ast_1", src: "/assets/ast_1" },
    ]);
  });
});
