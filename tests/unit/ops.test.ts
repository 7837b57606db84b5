import { describe, expect, it } from "vitest";
import type { Graph } from "../../shared/graph/document.ts";
import { applyOp, freshId } from "../../shared/graph/ops.ts";

const empty: Graph = { nodes: [], edges: [] };

function must(result: ReturnType<typeof applyOp>) {
  if (!result.ok) throw new Error(result.message);
  return result;
}

describe("document operations", () => {
  it("adds nodes with fresh ids and default positions, never mutating the input", () => {
    const a = must(applyOp(empty, "ui_add_node", { node_type: "text.template" }));
    const b = must(applyOp(a.graph, "ui_add_node", { node_type: "text.template", data: { template: "x" } }));
    expect(b.graph.nodes.map((n) => n.id)).toEqual(["text_template", "text_template_2"]);
    expect(b.graph.nodes[1]?.position.x).toBeGreaterThan(b.graph.nodes[0]?.position.x ?? 0);
    expect(empty.nodes).toHaveLength(0);
    expect(applyOp(b.graph, "ui_add_node", { node_type: "x", node_id: "text_template" })).toMatchObject({ ok: false });
  });

  it("connects existing nodes once per input handle and deletes edges with their nodes", () => {
    let g = must(applyOp(empty, "ui_add_node", { node_type: "a", node_id: "a" })).graph;
    g = must(applyOp(g, "ui_add_node", { node_type: "b", node_id: "b" })).graph;
    const c = must(
      applyOp(g, "ui_connect_nodes", { source: "a", source_handle: "output", target: "b", target_handle: "in" }),
    );
    expect(c.value).toEqual({ edge_id: "e_a_b" });
    expect(applyOp(c.graph, "ui_connect_nodes", { source: "a", target: "b", target_handle: "in" })).toMatchObject({
      ok: false,
      message: expect.stringContaining("already connected"),
    });
    expect(applyOp(c.graph, "ui_connect_nodes", { source: "a", target: "a", target_handle: "x" })).toMatchObject({
      ok: false,
    });
    const d = must(applyOp(c.graph, "ui_delete_node", { node_id: "a" }));
    expect(d.graph).toEqual({ nodes: [g.nodes[1]], edges: [] });
    expect(applyOp(d.graph, "ui_delete_edge", { edge_id: "e_a_b" })).toMatchObject({ ok: false });
  });

  it("updates data by merging, moves, retitles; copy and paste remap ids and edges", () => {
    let g = must(applyOp(empty, "ui_add_node", { node_type: "t", node_id: "n", data: { a: 1 } })).graph;
    g = must(applyOp(g, "ui_add_node", { node_type: "t", node_id: "m" })).graph;
    g = must(applyOp(g, "ui_connect_nodes", { source: "n", target: "m", target_handle: "in" })).graph;
    g = must(applyOp(g, "ui_update_node_data", { node_id: "n", data: { b: 2 } })).graph;
    g = must(applyOp(g, "ui_move_node", { node_id: "n", x: 5, y: 6 })).graph;
    g = must(applyOp(g, "ui_set_node_title", { node_id: "n", title: "N" })).graph;
    expect(g.nodes[0]).toMatchObject({ data: { a: 1, b: 2 }, position: { x: 5, y: 6 }, title: "N" });
    const fragment = must(applyOp(g, "ui_copy", { node_ids: ["n", "m"] })).value as Graph;
    expect(fragment.edges).toHaveLength(1);
    const pasted = must(applyOp(g, "ui_paste", { fragment, offset: { x: 10, y: 0 } }));
    expect(pasted.value).toEqual({ node_ids: ["n_2", "m_2"], edge_ids: ["e_n_m_2"] });
    expect(pasted.graph.edges[1]).toMatchObject({ source: "n_2", target: "m_2" });
    expect(pasted.graph.nodes[2]?.position).toEqual({ x: 15, y: 6 });
  });

  it("freshId cleans odd characters", () => {
    expect(freshId("a b/c", new Set())).toBe("a_b_c");
    expect(freshId("", new Set())).toBe("node");
  });
});
