import { describe, expect, it } from "vitest";
import { watchEvents } from "../support/events.ts";
import { startTestServer, WORKFLOWS } from "../support/server.ts";

const UI = "@nodetool-ai/sandbox-nodetool/ui";

describe("the ui namespace on the server", () => {
  it("without an editor, document tools edit the stored workflow named by workflow_id", async () => {
    await using server = await startTestServer();
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const call = (exp: string, args: unknown[]) =>
      server.script.run.invoke.mutate({ runId, module: UI, export: exp, args });
    const created = (await server.script.run.invoke.mutate({
      runId,
      module: WORKFLOWS,
      export: "create",
      args: ["ui"],
    })) as {
      value: { id: string };
    };
    const workflow_id = created.value.id;

    expect(
      await call("addNode", [{ workflow_id, node_type: "constant.string", node_id: "a", data: { value: "hi" } }]),
    ).toMatchObject({
      ok: true,
      value: { node_id: "a", version: 2 },
    });
    expect(await call("addNode", [{ workflow_id, node_type: "text.length" }])).toMatchObject({
      ok: true,
      value: { node_id: "text_length" },
    });
    expect(
      await call("connect", [
        { workflow_id, source: "a", source_handle: "output", target: "text_length", target_handle: "text" },
      ]),
    ).toMatchObject({ ok: true, value: { edge_id: "e_a_text_length" } });
    expect(await call("setNodeTitle", [{ workflow_id, node_id: "a", title: "Greeting" }])).toMatchObject({ ok: true });
    expect(await call("connect", [{ workflow_id, source: "a", target: "ghost", target_handle: "x" }])).toMatchObject({
      ok: false,
      error: { code: "capability_failed", message: expect.stringContaining('no node "ghost"') },
    });
    const graph = (await call("getGraph", [{ workflow_id }])) as {
      value: { nodes: { id: string; title?: string }[]; edges: unknown[] };
    };
    expect(graph.value.nodes.map((n) => n.id)).toEqual(["a", "text_length"]);
    expect(graph.value.nodes[0]?.title).toBe("Greeting");
    expect(graph.value.edges).toHaveLength(1);
    expect(
      await server.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "get", args: [workflow_id] }),
    ).toMatchObject({
      value: { version: 5 },
    });

    expect(await call("deleteNode", [{ workflow_id, node_id: "a" }])).toMatchObject({
      ok: true,
      value: { deleted_edges: ["e_a_text_length"] },
    });
    expect(await call("addNode", ["constant.number"])).toMatchObject({
      ok: false,
      error: { code: "capability_unavailable" },
    });
    expect(await call("openWorkflow", [workflow_id])).toMatchObject({
      ok: false,
      error: { code: "capability_unavailable", message: expect.stringContaining("needs a connected editor") },
    });
    expect(await call("addNode", [{ workflow_id: "wf_missing", node_type: "x" }])).toMatchObject({
      ok: false,
      error: { code: "capability_failed" },
    });
    const hits = (await call("searchNodes", ["template"])) as { value: { nodes: { id: string }[] } };
    expect(hits.value.nodes[0]?.id).toBe("text.template");
    expect(await call("renderers", [])).toMatchObject({ ok: true });
  });

  it("without an editor, data, move, edge deletion, copy and paste act on the stored workflow too", async () => {
    await using server = await startTestServer();
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const call = (exp: string, args: unknown[]) =>
      server.script.run.invoke.mutate({ runId, module: UI, export: exp, args });
    const graph = {
      nodes: [
        { id: "a", type: "constant.string", data: { value: "hi" }, position: { x: 0, y: 0 } },
        { id: "b", type: "text.length", data: {}, position: { x: 200, y: 0 } },
      ],
      edges: [{ id: "e1", source: "a", sourceHandle: "output", target: "b", targetHandle: "text" }],
    };
    const created = (await server.script.run.invoke.mutate({
      runId,
      module: WORKFLOWS,
      export: "create",
      args: [{ name: "edit me", graph }],
    })) as { value: { id: string } };
    const workflow_id = created.value.id;

    expect(await call("updateNodeData", ["a", { workflow_id, data: { value: "ho" } }])).toEqual({
      ok: true,
      value: { node_id: "a", data: { value: "ho" }, workflow_id, version: 2 },
    });
    expect(await call("moveNode", [{ workflow_id, node_id: "b", x: 300, y: 40 }])).toEqual({
      ok: true,
      value: { node_id: "b", position: { x: 300, y: 40 }, workflow_id, version: 3 },
    });
    const copied = (await call("copy", [{ workflow_id, node_ids: ["a", "b"] }])) as {
      ok: true;
      value: { nodes: { id: string; data: unknown }[]; edges: { id: string }[] };
    };
    expect(copied.value.nodes.map((n) => [n.id, n.data])).toEqual([
      ["a", { value: "ho" }],
      ["b", {}],
    ]);
    expect(copied.value.edges.map((e) => e.id)).toEqual(["e1"]);
    expect(await call("paste", [{ workflow_id, fragment: copied.value }])).toEqual({
      ok: true,
      value: { node_ids: ["a_2", "b_2"], edge_ids: ["e1_2"], workflow_id, version: 4 },
    });
    expect(await call("deleteEdge", ["e1", { workflow_id }])).toEqual({
      ok: true,
      value: { deleted: "e1", workflow_id, version: 5 },
    });
    const after = (await call("getGraph", [{ workflow_id }])) as {
      value: { nodes: { id: string; position: unknown }[]; edges: { id: string }[] };
    };
    expect(after.value.edges.map((e) => e.id)).toEqual(["e1_2"]);
    expect(after.value.nodes.find((n) => n.id === "b_2")?.position).toEqual({ x: 340, y: 80 });
  });

  it("with an editor, run.authorize runs the gate (same prompt, allow-set, audit) and run.complete records the outcome", async () => {
    await using server = await startTestServer();
    const browser = await server.browser();
    const { sessionId } = await server.script.session.create.mutate({ mode: "default" });
    using events = await watchEvents(browser, sessionId);
    const { runId } = await browser.run.start.mutate({ sessionId, editor: true });
    const authorize = (capability: string, args: unknown, callId: string) =>
      browser.run.authorize.mutate({ runId, capability, args, callId });

    const pending = authorize("ui_add_node", { node_type: "constant.string", node_id: "n1" }, "u1");
    const asked = await events.next("approval_requested");
    expect(asked.approval).toMatchObject({ capability: "ui_add_node", category: "write" });
    await browser.approvals.respond.mutate({ approvalId: asked.approval.approval_id, answer: "allow_for_session" });
    expect(await pending).toMatchObject({
      ok: true,
      value: { authorized: true, capability: "ui_add_node", args: { node_type: "constant.string", node_id: "n1" } },
    });
    expect(await browser.run.complete.mutate({ runId, callId: "u1", ok: true })).toEqual({ recorded: true });
    expect(await browser.run.complete.mutate({ runId, callId: "u1", ok: true })).toMatchObject({
      ok: false,
      error: { code: "invalid_call" },
    });

    // Allowed for the session: the next add does not ask; a different write name does.
    expect(await authorize("ui_add_node", { node_type: "text.length" }, "u2")).toMatchObject({ ok: true });
    await browser.run.complete.mutate({
      runId,
      callId: "u2",
      ok: false,
      error: { code: "capability_failed", message: "node exists" },
    });
    const moving = authorize("ui_move_node", { node_id: "n1", x: 1, y: 2 }, "u3");
    expect((await events.next("approval_requested")).approval.capability).toBe("ui_move_node");
    await browser.session.setMode.mutate({ sessionId, mode: "plan" });
    const asked3 = events.events.filter((e) => e.type === "approval_requested").at(-1);
    if (asked3?.type === "approval_requested") {
      await browser.approvals.respond.mutate({ approvalId: asked3.approval.approval_id, answer: "deny" });
    }
    expect(await moving).toMatchObject({ ok: false, error: { code: "permission_denied" } });
    expect(await authorize("ui_delete_node", { node_id: "n1" }, "u4")).toMatchObject({
      ok: false,
      error: { code: "blocked_in_plan_mode" },
    });
    // Steering tools pass with an editor connected; validation still runs first.
    expect(await authorize("ui_open_workflow", { workflow_id: "wf_x" }, "u5")).toMatchObject({ ok: true });
    expect(await authorize("ui_move_node", { node_id: "n1" }, "u6")).toMatchObject({
      ok: false,
      error: { code: "invalid_tool_arguments" },
    });
    expect(await authorize("create_workflow", { name: "x" }, "u7")).toMatchObject({
      ok: false,
      error: { code: "invalid_call" },
    });

    await server.app.audit.flush();
    const rows = await server.app.store
      .sql("SELECT capability, decision, outcome FROM audit WHERE run_id = ? ORDER BY id")
      .all(runId);
    expect(rows).toContainEqual({ capability: "ui_add_node", decision: "ask", outcome: "ok" });
    expect(rows).toContainEqual({
      capability: "ui_add_node",
      decision: "allowed_by_session",
      outcome: "capability_failed",
    });
    expect(rows).toContainEqual({ capability: "ui_move_node", decision: "ask", outcome: "permission_denied" });
  });
});
