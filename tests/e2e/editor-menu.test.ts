/**
 * What a React Flow editor's user reaches for with the mouse's other button: a connection is selected
 * by a click and Delete removes it; a right-click on a node, a connection or the empty canvas opens a
 * menu of what can be done there, and the keyboard opens the same menus (the Menu key, Shift+F10) and
 * moves through them as through any menu.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { openApp } from "./browser.ts";
import { addNode, connect, newWorkflow, node } from "./editor.ts";

const edges = (page: Page) => page.locator(".react-flow__edge");
const nodes = (page: Page) => page.locator(".react-flow__node[data-id]");
const menu = (page: Page) => page.getByRole("menu");
const ids = (page: Page) => nodes(page).evaluateAll((all) => all.map((n) => n.getAttribute("data-id") ?? ""));
const focusedLabel = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? "");
const focusedNode = (page: Page) =>
  page.evaluate(() => document.activeElement?.closest(".react-flow__node")?.getAttribute("data-id") ?? null);

/** A point of empty canvas (the pane itself is under it), the first on a grid from the top left. */
async function emptySpot(page: Page, skip = 0): Promise<{ x: number; y: number }> {
  const canvas = await page.getByRole("region", { name: "Workflow canvas" }).boundingBox();
  if (!canvas) throw new Error("no canvas");
  const spot = await page.evaluate(
    ({ box, skip }) => {
      let left = skip;
      for (let y = box.y + 40; y < box.y + box.height - 40; y += 60)
        for (let x = box.x + 80; x < box.x + box.width - 200; x += 60)
          if (document.elementFromPoint(x, y)?.classList.contains("react-flow__pane") && left-- === 0) return { x, y };
      return undefined;
    },
    { box: canvas, skip },
  );
  if (!spot) throw new Error("no empty canvas left");
  return spot;
}

/** The middle of a connection's drawn path (a bezier's middle is on it). */
async function edgeMiddle(page: Page) {
  const box = await edges(page).first().boundingBox();
  if (!box) throw new Error("no connection drawn");
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function twoConnected(page: Page, name: string) {
  await page.setViewportSize({ width: 1400, height: 900 });
  await newWorkflow(page, name);
  await addNode(page, "text", "constant.string");
  await addNode(page, "text length", "text.length");
  await connect(page, { node: "constant_string", handle: "output" }, { node: "text_length", handle: "text" });
}

describe("the canvas's other button and its keys", () => {
  it("selects a connection by a click and Delete removes it; its menu deletes it too", async () => {
    await using app = await openApp();
    const { page } = app;
    await twoConnected(page, "Connections");

    const middle = await edgeMiddle(page);
    await page.mouse.click(middle.x, middle.y);
    await expect.poll(() => page.locator(".react-flow__edge.selected").count()).toBe(1);
    await page.keyboard.press("Delete");
    await expect.poll(() => edges(page).count()).toBe(0);
    expect(await nodes(page).count()).toBe(2);
    await page.keyboard.press("Control+z");
    await expect.poll(() => edges(page).count()).toBe(1);
    // By keyboard: a focused connection (named by its ends) is selected by Enter.
    await page.getByRole("group", { name: "Connection from constant_string output to text_length text" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator(".react-flow__edge.selected").count()).toBe(1);
    await page.keyboard.press("Delete");
    await expect.poll(() => edges(page).count()).toBe(0);
    await page.keyboard.press("Control+z");
    await expect.poll(() => edges(page).count()).toBe(1);

    // The connection's own menu: one item, which deletes it (the nodes stay).
    const again = await edgeMiddle(page);
    await page.mouse.click(again.x, again.y, { button: "right" });
    expect(await menu(page).getAttribute("aria-label")).toBe("Connection actions");
    expect(await focusedLabel(page)).toContain("Delete connection");
    await page.keyboard.press("Enter");
    await expect.poll(() => edges(page).count()).toBe(0);
    expect(await menu(page).count()).toBe(0);
    expect(await nodes(page).count()).toBe(2);
  });

  it("offers Copy, Duplicate, Disconnect and Delete on a node, and Add node, Paste and the view on the canvas", async () => {
    await using app = await openApp();
    const { page } = app;
    await twoConnected(page, "Menus");

    // A right-click on a node selects it and opens its menu, the first item focused; arrows move. (No
    // model provider here: no `Ask the agent`, agent-asks.test.ts has it.)
    await node(page, "constant_string").locator(".wf-node-title").click({ button: "right" });
    expect(await menu(page).getAttribute("aria-label")).toBe("Node actions");
    expect(await menu(page).getByRole("menuitem").allTextContents()).toEqual([
      "CopyCtrl+C",
      "DuplicateCtrl+D",
      "RenameF2",
      "Disconnect",
      "DeleteDelete",
    ]);
    expect(await focusedLabel(page)).toContain("Copy");
    await page.keyboard.press("ArrowUp");
    expect(await focusedLabel(page)).toContain("Delete");
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    // Duplicate: a copy of the node, selected.
    await expect.poll(() => nodes(page).count()).toBe(3);
    await page
      .getByRole("region", { name: "Inspector" })
      .getByText(/· constant_string_2$/)
      .waitFor();

    // Disconnect takes the node's connections away, as one undo step.
    await node(page, "text_length").locator(".wf-node-title").click({ button: "right" });
    await menu(page).getByRole("menuitem", { name: "Disconnect" }).click();
    await expect.poll(() => edges(page).count()).toBe(0);
    await page.keyboard.press("Control+z");
    await expect.poll(() => edges(page).count()).toBe(1);
    // A node without connections has Disconnect, disabled.
    await node(page, "constant_string_2").locator(".wf-node-title").click({ button: "right" });
    expect(await menu(page).getByRole("menuitem", { name: "Disconnect" }).getAttribute("aria-disabled")).toBe("true");
    // Copy, then a right-click on empty canvas pastes the copy where it was clicked.
    await menu(page).getByRole("menuitem", { name: "Copy" }).click();
    const spot = await emptySpot(page);
    await page.mouse.click(spot.x, spot.y, { button: "right" });
    expect(await menu(page).getAttribute("aria-label")).toBe("Canvas actions");
    expect(await menu(page).getByRole("menuitem").allTextContents()).toEqual([
      "Add node here",
      "Paste here",
      "Select allCtrl+A",
      "Auto layout",
      "Fit view",
      "Find a nodeCtrl+F",
    ]);
    const before = await ids(page);
    await menu(page).getByRole("menuitem", { name: "Paste here" }).click();
    await expect.poll(() => nodes(page).count()).toBe(4);
    const [pastedId] = (await ids(page)).filter((id) => !before.includes(id));
    const pasted = await node(page, pastedId ?? "").boundingBox();
    if (!pasted) throw new Error("the pasted node is not drawn");
    expect(Math.abs(pasted.x - spot.x)).toBeLessThan(4);
    expect(Math.abs(pasted.y - spot.y)).toBeLessThan(4);

    // A click elsewhere closes a menu without doing anything.
    const other = await emptySpot(page, 3);
    await page.mouse.click(other.x, other.y, { button: "right" });
    await menu(page).waitFor();
    await page.mouse.click(spot.x, spot.y);
    expect(await menu(page).count()).toBe(0);
    expect(await nodes(page).count()).toBe(4);

    // Add node here opens the palette there; what is picked lands at that point.
    await page.mouse.click(other.x, other.y, { button: "right" });
    await menu(page).getByRole("menuitem", { name: "Add node here" }).click();
    const search = page.getByRole("combobox", { name: "Search node types" });
    expect(await search.evaluate((el) => el === document.activeElement)).toBe(true);
    await search.fill("number");
    await search.press("Enter");
    await expect.poll(() => nodes(page).count()).toBe(5);
    const added = await node(page, "constant_number").boundingBox();
    if (!added) throw new Error("the new node is not drawn");
    expect(Math.abs(added.x - other.x)).toBeLessThan(4);
    expect(Math.abs(added.y - other.y)).toBeLessThan(4);

    // Select all, from the menu: the inspector says how many.
    const third = await emptySpot(page, 6);
    await page.mouse.click(third.x, third.y, { button: "right" });
    await menu(page).getByRole("menuitem", { name: "Select all" }).click();
    await page.getByText("5 nodes are selected; select one to edit it.").waitFor();
  });

  it("opens the same menus from the keyboard, and Escape gives focus back", async () => {
    await using app = await openApp();
    const { page } = app;
    await twoConnected(page, "Keys");

    // Shift+F10 on a focused node (named by its title, type and id): its menu; Escape closes it and the
    // node has focus again.
    await page.getByRole("group", { name: "Text length (text.length), text_length" }).focus();
    await page.keyboard.press("Shift+F10");
    expect(await menu(page).getAttribute("aria-label")).toBe("Node actions");
    await page.keyboard.press("Escape");
    expect(await menu(page).count()).toBe(0);
    expect(await focusedNode(page)).toBe("text_length");
    // The Menu key, then End and Enter: Delete; focus goes to the node left.
    await page.keyboard.press("ContextMenu");
    await menu(page).waitFor();
    await page.keyboard.press("End");
    expect(await focusedLabel(page)).toContain("Delete");
    await page.keyboard.press("Enter");
    await expect.poll(() => nodes(page).count()).toBe(1);
    await expect.poll(() => focusedNode(page)).toBe("constant_string");

    // F2 on the focused node: its title, in the inspector, to type; Enter gives focus back to the node.
    await page.keyboard.press("F2");
    const title = page.getByRole("region", { name: "Inspector" }).getByRole("textbox", { name: "Title" });
    await expect.poll(() => title.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type("Greeting");
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedNode(page)).toBe("constant_string");
    await page.getByRole("group", { name: "Greeting (constant.string), constant_string" }).waitFor();
    // The menu's Rename does the same.
    await page.keyboard.press("Shift+F10");
    await menu(page).getByRole("menuitem", { name: "Rename" }).click();
    await expect.poll(() => title.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Escape");
    await expect.poll(() => focusedNode(page)).toBe("constant_string");

    // On the canvas itself: its menu; Ctrl+A selects every node, as Select all does. (Two undos: the
    // new title, one step, then the deletion.)
    await page.keyboard.press("Control+z");
    await page.getByRole("group", { name: "Text (constant.string), constant_string" }).waitFor();
    await page.keyboard.press("Control+z");
    await expect.poll(() => nodes(page).count()).toBe(2);
    await page.getByRole("region", { name: "Workflow canvas" }).focus();
    await page.keyboard.press("Shift+F10");
    expect(await menu(page).getAttribute("aria-label")).toBe("Canvas actions");
    // Nothing was copied yet: Paste here is there, disabled, and the arrows pass over it.
    expect(await menu(page).getByRole("menuitem", { name: "Paste here" }).getAttribute("aria-disabled")).toBe("true");
    await page.keyboard.press("ArrowDown");
    expect(await focusedLabel(page)).toContain("Select all");
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+a");
    await page.getByText("2 nodes are selected; select one to edit it.").waitFor();
  });
});
