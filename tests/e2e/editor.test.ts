import { describe, expect, it } from "vitest";
import { openApp } from "./browser.ts";
import { addNode as addFromPalette, newWorkflow } from "./editor.ts";

describe("the workflow editor, by hand", () => {
  it("adds, drags, connects, undoes and saves; a reload finds the saved graph; hand edits never prompt", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await newWorkflow(page, "Hand made");
    await addFromPalette(page, "text", "constant.string");
    await addFromPalette(page, "length", "text.length");
    const nodes = page.locator(".react-flow__node[data-id]");
    await expect.poll(() => nodes.count()).toBe(2);

    // Drag the second node with real mouse moves (React Flow ignores dragTo).
    const second = page.locator('.react-flow__node[data-id="text_length"]');
    const box = await second.boundingBox();
    if (!box) throw new Error("node not visible");
    await page.mouse.move(box.x + box.width / 2, box.y + 8);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 120, box.y + 90, { steps: 12 });
    await page.mouse.up();

    // Connect constant.string's output to text.length's input through the handles.
    const source = page.locator('.react-flow__node[data-id="constant_string"] .react-flow__handle.source').first();
    const target = page.locator('.react-flow__node[data-id="text_length"] .react-flow__handle.target').first();
    const s = await source.boundingBox();
    const t = await target.boundingBox();
    if (!s || !t) throw new Error("handles not visible");
    await page.mouse.move(s.x + s.width / 2, s.y + s.height / 2);
    await page.mouse.down();
    await page.mouse.move(t.x + t.width / 2, t.y + t.height / 2, { steps: 15 });
    await page.mouse.up();
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(1);

    // Undo removes the edge, redo brings it back.
    await page.getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(0);
    await page.getByRole("button", { name: "Redo" }).click();
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(1);

    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Hand made · version 2").waitFor();
    // "Saved." is a short notice, not a lasting banner.
    await page.getByRole("status").getByText("Saved.").waitFor();
    await expect.poll(() => page.getByText("Saved.").count(), { timeout: 8000 }).toBe(0);
    const stored = (await server.app.store.sql("SELECT graph FROM workflows WHERE name = 'Hand made'").get()) as {
      graph: string;
    };
    const graph = JSON.parse(stored.graph) as { nodes: { id: string; position: { x: number } }[]; edges: unknown[] };
    expect(graph.nodes.map((n) => n.id)).toEqual(["constant_string", "text_length"]);
    expect(graph.edges).toHaveLength(1);

    await page.reload();
    await page.getByText("Hand made · version 2").waitFor();
    await expect.poll(() => nodes.count()).toBe(2);
    // React Flow draws edges once their nodes are measured, a frame after the nodes appear.
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(1);

    // The person's own edits were never prompted, and were audited as the user's.
    expect(await server.app.store.sql("SELECT count(*) AS n FROM approvals").get()).toEqual({ n: 0 });
    await server.app.audit.flush();
    const acts = await server.app.store
      .sql("SELECT DISTINCT capability FROM audit WHERE actor = 'user' ORDER BY capability")
      .all();
    expect(acts).toEqual(
      expect.arrayContaining([
        { capability: "create_workflow" },
        { capability: "ui_add_node" },
        { capability: "ui_connect_nodes" },
        { capability: "update_workflow" },
      ]),
    );
    expect(app.problems).toEqual([]);
  });

  it("keeps an unsaved draft across a reload, and detects a conflicting save from a second tab", async () => {
    await using app = await openApp();
    const { page, context } = app;
    await newWorkflow(page, "Shared");
    await addFromPalette(page, "number", "constant.number");
    await page.reload();
    await page.getByText("Shared · version 1 · unsaved draft").waitFor();
    await expect.poll(() => page.locator(".react-flow__node[data-id]").count()).toBe(1);

    const other = await context.newPage();
    await other.goto(app.server.url);
    await other.getByText("Shared · version 1").waitFor();
    await addFromPalette(other, "boolean", "constant.boolean");
    await other.getByRole("button", { name: "Save" }).click();
    await other.getByText("Shared · version 2").waitFor();

    await addFromPalette(page, "json", "constant.json");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("changed elsewhere").waitFor();
    const stored = await app.server.app.store.sql("SELECT version FROM workflows WHERE name = 'Shared'").get();
    expect(stored).toEqual({ version: 2 });
    await page.getByRole("button", { name: "Reload" }).click();
    await page.getByText("Shared · version 2").waitFor();
  });
});
