/**
 * Nodes go through the system clipboard, as in other node editors: Ctrl/Cmd+C (or the node menu's
 * Copy) puts them there as a graph's text, so they paste into a workflow in another tab with their
 * connections; a graph's text copied from elsewhere pastes as nodes; a graph that cannot be used is
 * refused with why; text that is no graph pastes the page's own copy.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { openApp } from "./browser.ts";
import { focusCanvas, newWorkflow, node, select } from "./editor.ts";

const nodes = (page: Page) => page.locator(".react-flow__node[data-id]");
const edges = (page: Page) => page.locator(".react-flow__edge");
const types = (page: Page) =>
  nodes(page).evaluateAll((all) => all.map((n) => n.querySelector(".wf-node-type")?.textContent ?? ""));

const GRAPH = {
  nodes: [
    { id: "first", type: "math.add", data: { a: 1, b: 2 }, position: { x: 0, y: 0 } },
    { id: "second", type: "math.multiply", data: { b: 3 }, position: { x: 260, y: 0 } },
  ],
  edges: [{ id: "e1", source: "first", sourceHandle: "output", target: "second", targetHandle: "a" }],
};

async function importGraph(page: Page, name: string): Promise<void> {
  const [chooser] = await Promise.all([
    page.waitForEvent("filechooser"),
    page.getByRole("button", { name: "Import" }).click(),
  ]);
  await chooser.setFiles({
    name: `${name}.json`,
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(GRAPH)),
  });
  await page.getByText(`${name} · version 1`).waitFor();
}

/** Puts `text` on the system clipboard as another application would. */
const clipboard = (page: Page, text: string) => page.evaluate((t) => navigator.clipboard.writeText(t), text);

describe("nodes through the system clipboard", () => {
  it("pastes nodes copied in one tab into another tab's workflow, with their connection", async () => {
    await using app = await openApp();
    const { page, context, server } = app;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    await importGraph(page, "Source");
    await select(page, "first");
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Control+c");
    // What the clipboard holds is a graph's text (a file Import opens, too).
    const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as typeof GRAPH;
    expect(copied.nodes.map((n) => n.id)).toEqual(["first", "second"]);
    expect(copied.edges).toEqual(GRAPH.edges);

    const other = await app.newPage();
    await other.goto(server.url);
    await newWorkflow(other, "Target");
    await focusCanvas(other);
    await other.keyboard.press("Control+v");
    await expect.poll(() => nodes(other).count()).toBe(2);
    expect(await types(other)).toEqual(["math.add", "math.multiply"]);
    expect(await edges(other).count()).toBe(1);
    await other.getByText("Target · version 1 · unsaved draft").waitFor();
    // The pasted nodes are the selection, and a second paste lands a step further.
    await other.getByRole("region", { name: "Inspector" }).getByText("2 nodes are selected").waitFor();
    await other.keyboard.press("Control+v");
    await expect.poll(() => nodes(other).count()).toBe(4);
    // The source tab's workflow is as it was.
    expect(await nodes(page).count()).toBe(2);

    // The node menu's Copy puts them there too.
    await page.bringToFront();
    await focusCanvas(page);
    await select(page, "second");
    await node(page, "second").locator(".wf-node-title").click({ button: "right" });
    await page.getByRole("menu").getByRole("menuitem", { name: "Copy" }).click();
    await expect
      .poll(async () => (JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as typeof GRAPH).nodes)
      .toHaveLength(1);
    expect(app.problems).toEqual([]);
  });

  it("pastes a graph's text as nodes, refuses one it cannot use, and text that is no graph pastes the page's copy", async () => {
    await using app = await openApp();
    const { page, context, server } = app;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    await newWorkflow(page, "Pasted");

    await clipboard(page, JSON.stringify(GRAPH, null, 2));
    await focusCanvas(page);
    await page.keyboard.press("Control+v");
    await expect.poll(() => nodes(page).count()).toBe(2);
    expect(await edges(page).count()).toBe(1);

    await clipboard(
      page,
      JSON.stringify({ nodes: [{ id: "x", type: "no.such", data: {}, position: { x: 0, y: 0 } }], edges: [] }),
    );
    await focusCanvas(page);
    await page.keyboard.press("Control+v");
    await page
      .getByRole("status")
      .getByText('What you pasted cannot be pasted: node "x" has type "no.such", which is not a node type here.')
      .waitFor();
    expect(await nodes(page).count()).toBe(2);

    await clipboard(page, "just some words");
    await focusCanvas(page);
    await page.keyboard.press("Control+v");
    await expect.poll(() => nodes(page).count()).toBe(4);
    // An image pasted on the canvas pastes nothing (a paste event as the browser gives one for a file).
    await focusCanvas(page);
    const taken = await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array([137, 80, 78, 71])], "shot.png", { type: "image/png" }));
      const paste = new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true });
      return !(document.activeElement ?? document.body).dispatchEvent(paste);
    });
    expect(taken).toBe(false);
    expect(await nodes(page).count()).toBe(4);
    // Text the person selected (the inspector's heading) copies as text, though a node is selected too.
    await select(page, "first");
    await page.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      const title = document.querySelector('[aria-label="Inspector"] h2');
      if (!title) throw new Error("no heading");
      const range = document.createRange();
      range.selectNodeContents(title);
      document.getSelection()?.removeAllRanges();
      document.getSelection()?.addRange(range);
    });
    await page.keyboard.press("Control+c");
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("Add");
    await page.evaluate(() => document.getSelection()?.removeAllRanges());
    // In a field, a paste is the field's own.
    await select(page, "first");
    const b = page.getByRole("region", { name: "Inspector" }).getByRole("spinbutton", { name: /^b\b/ });
    await clipboard(page, "42");
    await b.focus();
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Control+v");
    await expect.poll(() => b.inputValue()).toBe("42");
    expect(await nodes(page).count()).toBe(4);
    expect(app.problems).toEqual([]);
  });
});
