import { describe, expect, it } from "vitest";
import { openApp } from "./browser.ts";
import { node, newWorkflow as openNewWorkflow } from "./editor.ts";
import { dialog, finished, runAction } from "./panel.ts";

const BUILD = `const g = await openWorkflow();
g.addNode("greet", "constant.string", { value: "hello" }, { x: 0, y: 0 });
g.addNode("len", "text.length", {}, { x: 260, y: 0 });
g.connect("greet", "output", "len", "text");
const committed = await g.commit();
export default { ok: committed.ok, applied: committed.applied, edges: committed.edges?.length, failed: committed.failed?.error.code };`;

describe("an action edits the open workflow through ui", () => {
  it("makes nodes and an edge appear; one undo removes the action's edits; Save persists; a reload finds the saved graph", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await openNewWorkflow(page, "Agent built");
    // Which nodes are ever marked as just changed by an action, and how many times marks appeared (the
    // marks fade; this keeps the record).
    await page.evaluate(() => {
      const record = { seen: new Set<string>(), times: 0 };
      Object.assign(window, { marks: record });
      let shown = false;
      new MutationObserver(() => {
        const now = document.querySelectorAll(".wf-node.changed");
        for (const element of now) {
          const id = element.closest(".react-flow__node")?.getAttribute("data-id");
          if (id) record.seen.add(id);
        }
        if (now.length > 0 && !shown) record.times++;
        shown = now.length > 0;
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
    });
    const marks = () =>
      page.evaluate(() => {
        const { seen, times } = (window as unknown as { marks: { seen: Set<string>; times: number } }).marks;
        return { nodes: [...seen].sort(), times };
      });
    await runAction(page, BUILD);
    expect(await finished(page)).toMatch(/"applied": 3/);
    await page.locator('.react-flow__node[data-id="greet"]').waitFor();
    await page.locator('.react-flow__node[data-id="len"]').waitFor();
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(1);
    // What the action did is marked on the canvas for a moment, then not.
    await expect.poll(marks).toEqual({ nodes: ["greet", "len"], times: 1 });
    await page.locator(".wf-node.changed").first().waitFor({ state: "detached" });
    // Unsaved until Save: the stored workflow is still empty.
    const stored = async () =>
      JSON.parse(((await server.app.store.sql("SELECT graph FROM workflows").get()) as { graph: string }).graph);
    expect((await stored()).nodes).toEqual([]);

    // The action's commit() is one undo step: its two nodes and its edge go together.
    await page.getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => page.locator(".react-flow__node[data-id]").count()).toBe(0);
    expect(await page.locator(".react-flow__edge").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Undo" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Redo" }).click();
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(1);
    expect(await page.locator(".react-flow__node[data-id]").count()).toBe(2);
    // Undo and redo are the person's acts, even of an action's edits: nothing is marked.
    expect(await page.locator(".wf-node.changed").count()).toBe(0);

    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Agent built · version 2").waitFor();
    // The person's undo, redo and save marked nothing.
    expect(await page.locator(".wf-node.changed").count()).toBe(0);
    expect(await marks()).toEqual({ nodes: ["greet", "len"], times: 1 });
    expect((await stored()).nodes.map((n: { id: string }) => n.id)).toEqual(["greet", "len"]);
    await page.reload();
    await page.locator('.react-flow__node[data-id="len"]').waitFor();
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(1);
  });

  it("lays out a graph an action builds from nothing without positions, in the action's undo step; placed nodes stay put", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await openNewWorkflow(page, "Laid out");
    const positions = `const { nodes } = await ui.getGraph();
export default nodes.map((n) => \`\${n.id}@\${n.position.x},\${n.position.y}\`).join(" ");`;
    await runAction(
      page,
      `import { ui } from "@nodetool-ai/sandbox-nodetool/ui";
await ui.addNode({ node_type: "constant.number", node_id: "a", data: { value: 2 } });
await ui.addNode({ node_type: "constant.number", node_id: "b", data: { value: 40 } });
await ui.addNode({ node_type: "math.add", node_id: "sum" });
await ui.connect({ source: "a", target: "sum", target_handle: "a" });
await ui.connect({ source: "b", target: "sum", target_handle: "b" });
// Placed by the action itself from here on: nothing more is laid out in this action.
await ui.moveNode({ node_id: "sum", x: 700, y: 300 });
await ui.addNode({ node_type: "constant.number", node_id: "d" });
${positions}`,
    );
    // The action's answer, "id@x,y id@x,y ...", as positions by node id.
    const at = (text: string) =>
      Object.fromEntries(
        [...text.matchAll(/(\w+)@(-?[\d.]+),(-?[\d.]+)/g)].map(([, id, x, y]) => [id, { x: Number(x), y: Number(y) }]),
      );
    const built = at(await finished(page));
    // Left to right: both inputs in one column, one above the other (not a row the edges run behind).
    expect(built.a?.x).toBe(built.b?.x);
    // `a` feeds the upper input, so it stands above `b` (their edges do not cross).
    expect((built.b?.y ?? 0) - (built.a?.y ?? 0)).toBeGreaterThanOrEqual(60);
    expect(built.sum).toEqual({ x: 700, y: 300 });
    // Laid out after they were added, the nodes are still brought into view.
    const canvas = await page.getByRole("region", { name: "Workflow canvas" }).boundingBox();
    await expect
      .poll(async () => {
        const outside: string[] = [];
        for (const id of ["a", "b", "sum", "d"]) {
          const box = await page.locator(`.react-flow__node[data-id="${id}"]`).boundingBox();
          const inside =
            box &&
            canvas &&
            box.x >= canvas.x &&
            box.y >= canvas.y &&
            box.x + box.width <= canvas.x + canvas.width &&
            box.y + box.height <= canvas.y + canvas.height;
          if (!inside) outside.push(id);
        }
        return outside;
      })
      .toEqual([]);

    // A later action's unplaced node goes beside them; what is already placed does not move.
    await runAction(
      page,
      `import { ui } from "@nodetool-ai/sandbox-nodetool/ui";
await ui.addNode({ node_type: "constant.number", node_id: "c" });
${positions}`,
    );
    const after = at(await finished(page));
    expect(Object.keys(after)).toEqual(["a", "b", "sum", "d", "c"]);
    expect({ a: after.a, b: after.b, sum: after.sum }).toEqual({ a: built.a, b: built.b, sum: built.sum });
    // Each action is still one undo step, its layout included.
    await page.getByRole("button", { name: "Undo" }).click();
    await page.getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => page.locator(".react-flow__node[data-id]").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Undo" }).isDisabled()).toBe(true);
  });

  it("in default mode ui_add_node prompts; Allow for session covers the next ones of that name only", async () => {
    await using app = await openApp();
    const { page } = app;
    await openNewWorkflow(page, "Asked");
    await runAction(
      page,
      `import { ui } from "@nodetool-ai/sandbox-nodetool/ui";
await ui.addNode({ node_type: "constant.number", node_id: "n1" });
await ui.addNode({ node_type: "constant.number", node_id: "n2" });
await ui.moveNode({ node_id: "n1", x: 50, y: 50 });
export default "done";`,
    );
    await dialog(page).waitFor();
    expect(await dialog(page).textContent()).toContain("ui_add_node");
    await dialog(page).getByRole("button", { name: "Allow for session" }).click();
    // The second add does not ask; the move does.
    await dialog(page).waitFor();
    expect(await dialog(page).textContent()).toContain("ui_move_node");
    await expect.poll(() => page.locator(".react-flow__node[data-id]").count()).toBe(2);
    await dialog(page).getByRole("button", { name: "Allow once" }).click();
    expect(await finished(page)).toContain('"done"');
    await app.server.app.audit.flush();
    const rows = await app.server.app.store
      .sql("SELECT capability, decision, outcome FROM audit WHERE actor = 'agent' ORDER BY id")
      .all();
    expect(rows).toEqual([
      { capability: "ui_add_node", decision: "ask", outcome: "ok" },
      { capability: "ui_add_node", decision: "allowed_by_session", outcome: "ok" },
      { capability: "ui_move_node", decision: "ask", outcome: "ok" },
    ]);
  });

  it("opens a stored workflow and switches tabs on an action's request (steering tools the page serves)", async () => {
    await using app = await openApp();
    const { page, server } = app;
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const created = (await server.script.run.invoke.mutate({
      runId,
      module: "@nodetool-ai/sandbox-nodetool/workflows",
      export: "create",
      args: ["Steered"],
    })) as { value: { id: string } };
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await runAction(
      page,
      `import { ui } from "@nodetool-ai/sandbox-nodetool/ui";
const opened = await ui.openWorkflow(${JSON.stringify(created.value.id)});
const tab = await ui.switchTab("panel");
export default { opened, tab };`,
    );
    const text = await finished(page);
    expect(text).toContain(`"workflow_id": "${created.value.id}"`);
    expect(text).toContain('"name": "Steered"');
    expect(text).toContain('"tab": "panel"');
    await page.getByText("Steered · version 1").waitFor();
  });

  it('tells an action which nodes the person has selected (what "this node" means to the agent)', async () => {
    await using app = await openApp();
    const { page } = app;
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await openNewWorkflow(page, "Chosen");
    await runAction(page, BUILD);
    expect(await finished(page)).toContain('"ok": true');
    const read = `import { ui } from "@nodetool-ai/sandbox-nodetool/ui";
export default \`selected: \${(await ui.getGraph()).selected?.join(", ")}\`;`;
    await runAction(page, read);
    expect(await finished(page)).toContain('"selected: "');

    await node(page, "len").locator(".wf-node-title").click();
    await node(page, "greet")
      .locator(".wf-node-title")
      .click({ modifiers: ["Control"] });
    await page.getByRole("region", { name: "Inspector" }).getByText("2 nodes are selected").waitFor();
    await runAction(page, read);
    // In the canvas's order, whatever the order of the clicks.
    expect(await finished(page)).toContain('"selected: greet, len"');
    expect(app.problems).toEqual([]);
  });

  it("answers capability_unavailable when no workflow is open, and plan mode blocks edits", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await runAction(
      page,
      `import { ui } from "@nodetool-ai/sandbox-nodetool/ui";\nawait ui.addNode("constant.string");`,
    );
    expect(await finished(page)).toContain("capability_unavailable");
    await openNewWorkflow(page, "Planned");
    await page.getByLabel("Mode", { exact: true }).selectOption("plan");
    await runAction(page, BUILD);
    const text = await finished(page);
    expect(text).toContain('"ok": false');
    expect(text).toContain("blocked_in_plan_mode");
    expect(await page.locator(".react-flow__node[data-id]").count()).toBe(0);
  });
});
