/**
 * What a person takes for granted in the editor: the narrow layout stacks, an incompatible connection
 * is refused with its reason, a connection dropped on empty canvas opens the palette with what fits,
 * copy / paste / duplicate, the jobs list survives a reload, the picker follows an action's new
 * workflow, a graph with effects asks once before its first run, and Cancel stops a running job.
 */
import type { Page } from "playwright-core";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { NODE_TYPES } from "../../shared/graph/node-types.ts";
import { openApp } from "./browser.ts";
import { addNode, dragHandle, focusCanvas, newWorkflow, node, openTab, select } from "./editor.ts";
import { finished, runAction } from "./panel.ts";

const nodes = (page: Page) => page.locator(".react-flow__node[data-id]");

describe("the editor, as a person uses it", () => {
  it("stacks the canvas and the panel on a 420 px screen, the canvas using the width", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.setViewportSize({ width: 420, height: 900 });
    await newWorkflow(page, "Narrow");
    await page.reload();
    await page.getByText("Narrow · version 1").waitFor();
    const canvas = await page.getByRole("region", { name: "Workflow canvas" }).boundingBox();
    const panel = await page.getByRole("complementary", { name: "Agent panel" }).boundingBox();
    if (!canvas || !panel) throw new Error("layout not visible");
    expect(canvas.width).toBeGreaterThan(360);
    expect(panel.y).toBeGreaterThanOrEqual(canvas.y + canvas.height);
    expect(panel.width).toBeGreaterThan(360);
    // The skip link is the first stop and leads to the panel.
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to the agent panel" });
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest("#agent-panel") !== null)).toBe(true);
  });

  it("keeps the document's row on one line at 1280 px with long workflow names: the name is cut, its whole self a tooltip", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.setViewportSize({ width: 1280, height: 800 });
    const long = "The quarterly report of every region, summarised and sent to the whole team";
    await newWorkflow(page, long);
    await newWorkflow(page, `${long} (draft two)`);
    const row = async (name: string, exact = true) => {
      const box = await page.getByRole("button", { name, exact }).boundingBox();
      if (!box) throw new Error(`no ${name}`);
      return Math.round(box.y + box.height / 2);
    };
    const middle = await row("New workflow");
    expect(await row("More workflow actions")).toBe(middle);
    expect(await row("Import")).toBe(middle);
    // Edited, the state says so ("unsaved draft"), on the same row.
    await addNode(page, "add", "math.add");
    await page.getByText(/unsaved draft/).waitFor();
    expect(await row("More workflow actions")).toBe(middle);
    const name = page.getByRole("button", { name: `Rename workflow ${long} (draft two)` });
    expect(await name.getAttribute("title")).toBe(`${long} (draft two): click to rename`);
    expect(app.problems).toEqual([]);
  });

  it("finds a node by its name, type or id (Ctrl/Cmd+F or the canvas menu): Enter selects it, brings it into view and focuses it", async () => {
    await using app = await openApp();
    const { page } = app;
    await newWorkflow(page, "Finding");
    await addNode(page, "text length", "text.length");
    await addNode(page, "multiply", "math.multiply");
    await addNode(page, "add", "math.add");
    // The multiply node is named, and moved far off the view.
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await runAction(
      page,
      `import { ui } from "@nodetool-ai/sandbox-nodetool/ui";
await ui.setNodeTitle({ node_id: "math_multiply", title: "Price with tax" });
await ui.moveNode({ node_id: "math_multiply", x: 4000, y: 3000 });
export default "moved";`,
    );
    expect(await finished(page)).toContain('"moved"');
    await focusCanvas(page);
    await page.keyboard.press("ControlOrMeta+f");
    const finder = page.getByRole("region", { name: "Find a node" });
    const field = finder.getByRole("combobox", { name: "Search the workflow's nodes" });
    await expect.poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
    await expect
      .poll(() => finder.getByRole("option").allTextContents())
      .toEqual([
        "Text length text.length · text_length",
        "Price with tax math.multiply · math_multiply",
        "Add math.add · math_add",
      ]);
    await page.keyboard.type("tax");
    await expect
      .poll(() => finder.getByRole("option").allTextContents())
      .toEqual(["Price with tax math.multiply · math_multiply"]);
    await page.keyboard.press("Enter");
    await expect.poll(() => finder.count()).toBe(0);
    await page.getByRole("region", { name: "Inspector" }).getByRole("heading", { name: "Price with tax" }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-id"))).toBe("math_multiply");
    const canvas = await page.getByRole("region", { name: "Workflow canvas" }).boundingBox();
    await expect
      .poll(async () => {
        const box = await node(page, "math_multiply").boundingBox();
        return !!canvas && !!box && box.x >= canvas.x && box.x + box.width <= canvas.x + canvas.width;
      })
      .toBe(true);

    // From the canvas menu, by a word of its type; nothing matching says so; Escape gives focus back.
    await focusCanvas(page);
    await page.keyboard.press("Shift+F10");
    await page
      .getByRole("menu", { name: "Canvas actions" })
      .getByRole("menuitem", { name: /Find a node/ })
      .click();
    await field.waitFor();
    await page.keyboard.type("zebra");
    await finder.getByText("No node of this workflow matches.").waitFor();
    await page.keyboard.press("Escape");
    await expect.poll(() => finder.count()).toBe(0);
    // Outside the editor (focus on the page itself), Ctrl/Cmd+F stays the browser's find.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    expect(await page.evaluate(() => document.activeElement === document.body)).toBe(true);
    // The listener is in place before the key is pressed (an evaluate and a key press may arrive in any order).
    await page.evaluate(() =>
      window.addEventListener("keydown", (event) => {
        if (event.key === "f") setTimeout(() => Object.assign(window, { findPrevented: event.defaultPrevented }));
      }),
    );
    await page.keyboard.press("ControlOrMeta+f");
    await expect.poll(() => page.evaluate(() => (window as { findPrevented?: boolean }).findPrevented)).toBe(false);
    expect(await finder.count()).toBe(0);
    expect(app.problems).toEqual([]);
  });

  it("refuses an incompatible connection with its reason, and offers what fits when a drag ends on empty canvas", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.setViewportSize({ width: 1400, height: 900 });
    await newWorkflow(page, "Types");
    // An empty workflow says how to begin, over the canvas; a double-click goes through the words to it.
    const hint = page.getByRole("region", { name: "Workflow canvas" }).getByText("Double-click the canvas or press");
    await hint.waitFor();
    // Nothing to run yet: Run workflow waits, as Save does with nothing to save.
    const run = page.getByRole("button", { name: "Run workflow" });
    expect(await run.isDisabled()).toBe(true);
    // Double-clicking the empty canvas opens the palette with every node type; Escape closes it.
    const words = await hint.boundingBox();
    if (!words) throw new Error("no hint");
    await page.mouse.dblclick(words.x + words.width / 2, words.y + words.height / 2);
    expect(await page.getByRole("listbox", { name: "Node types" }).getByRole("option").count()).toBe(NODE_TYPES.length);
    // Typing a type's title puts that type first (Enter would add it), before types that only contain it.
    await page.keyboard.type("text");
    await expect
      .poll(() => page.getByRole("listbox", { name: "Node types" }).getByRole("option").first().textContent())
      .toBe("Text constant.string");
    // Nothing by that name: the palette says what does anything (a node of one's own code).
    await page.getByRole("combobox", { name: "Search node types" }).fill("uppercase");
    await page
      .getByRole("region", { name: "Node palette" })
      .getByText("No node type matches. Run code (code.run) runs a JavaScript function of your own.")
      .waitFor();
    await page.keyboard.press("Escape");
    await expect.poll(() => page.getByRole("listbox", { name: "Node types" }).count()).toBe(0);
    await addNode(page, "number", "constant.number");
    expect(await hint.count()).toBe(0);
    expect(await run.isEnabled()).toBe(true);
    await addNode(page, "length", "text.length");
    await dragHandle(
      page,
      { node: "constant_number", handle: "output", side: "source" },
      { node: "text_length", handle: "text", side: "target" },
    );
    await page.getByText("Not connected: A number output does not fit an input that takes a string").waitFor();
    expect(await page.locator(".react-flow__edge").count()).toBe(0);

    // Dropped on empty canvas: the palette lists only the types with a number input.
    const canvas = await page.getByRole("region", { name: "Workflow canvas" }).boundingBox();
    if (!canvas) throw new Error("no canvas");
    await dragHandle(
      page,
      { node: "constant_number", handle: "output", side: "source" },
      { x: canvas.x + canvas.width - 60, y: canvas.y + canvas.height - 120 },
    );
    const list = page.getByRole("listbox", { name: "Node types" });
    await list.waitFor();
    expect(await list.getByRole("option").count()).toBeLessThan(40);
    const offered = await list.getByRole("option").allTextContents();
    expect(offered.some((o) => o.includes("math.add"))).toBe(true);
    expect(offered.some((o) => o.includes("text.length"))).toBe(false);
    await page.getByRole("combobox", { name: "Search node types" }).fill("multiply");
    await page.keyboard.press("Enter");
    await node(page, "math_multiply").waitFor();
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(1);
    // Adding the node and its edge was one step.
    await focusCanvas(page);
    await page.keyboard.press("Control+z");
    await expect.poll(() => nodes(page).count()).toBe(2);
    expect(await page.locator(".react-flow__edge").count()).toBe(0);
  });

  it("keeps the palette's top match for Enter while the pointer rests over its list; a moving pointer picks a row", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.setViewportSize({ width: 1400, height: 900 });
    await newWorkflow(page, "Resting pointer");
    const canvas = await page.getByRole("region", { name: "Workflow canvas" }).boundingBox();
    if (!canvas) throw new Error("no canvas");
    // The palette opens at the pointer, so its rows come and go under it as the person types.
    const at = { x: canvas.x + 120, y: canvas.y + 140 };
    await page.mouse.dblclick(at.x, at.y);
    await page.keyboard.type("resize");
    await page.keyboard.press("Enter");
    await node(page, "image_resize").waitFor();
    // The new node is the selection: the inspector shows its inputs without another click; it has focus.
    await page.getByRole("region", { name: "Inspector" }).getByText("image.resize · image_resize").waitFor();
    const focusedNode = () => page.evaluate(() => document.activeElement?.getAttribute("data-id") ?? null);
    await expect.poll(focusedNode).toBe("image_resize");
    // Closed without adding, the palette gives focus back to what opened it.
    await page.getByRole("button", { name: "Add node" }).click();
    await page.keyboard.press("Escape");
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent ?? null)).toBe("Add node");
    // Ctrl+K opens it at the canvas's top centre: the pointer rests where its rows will be.
    await focusCanvas(page);
    const list = page.getByRole("listbox", { name: "Node types" });
    await page.keyboard.press("Control+k");
    const rows = await list.boundingBox();
    await page.keyboard.press("Escape");
    if (!rows) throw new Error("no palette");
    await page.mouse.move(rows.x + 30, rows.y + rows.height / 2);
    await page.keyboard.press("Control+k");
    // The whole query at once (a paste): the list changes from every type to the matches under the pointer.
    await page.getByRole("combobox", { name: "Search node types" }).fill("text length");
    await page.keyboard.press("Enter");
    await node(page, "text_length").waitFor();
    expect(await page.locator(".react-flow__node").count()).toBe(2);

    // A pointer that moves over a row makes it the one Enter takes.
    await focusCanvas(page);
    await page.keyboard.press("Control+k");
    await page.keyboard.type("number");
    const second = list.getByRole("option").nth(1);
    const box = await second.boundingBox();
    if (!box) throw new Error("no second row");
    await page.mouse.move(box.x + 10, box.y + box.height / 2, { steps: 4 });
    expect(await second.getAttribute("aria-selected")).toBe("true");
  });

  it("copies, pastes and duplicates the selection with the keyboard; deletes it; undo brings it back", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.setViewportSize({ width: 1400, height: 900 });
    await newWorkflow(page, "Copies");
    // The palette from the keyboard: Ctrl+K, type, Enter.
    await focusCanvas(page);
    await page.keyboard.press("Control+k");
    await page.keyboard.type("number");
    await page.keyboard.press("Enter");
    // A focused node moves with the arrow keys; the move is an edit like a drag (undoable).
    await select(page, "constant_number");
    const placed = await node(page, "constant_number").getAttribute("style");
    for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowRight");
    await expect.poll(() => page.getByRole("button", { name: "Undo" }).isEnabled()).toBe(true);
    await expect.poll(() => node(page, "constant_number").getAttribute("style")).not.toBe(placed);
    const moved = await node(page, "constant_number").getAttribute("style");
    await page.waitForTimeout(600);
    await page.keyboard.press("Control+z");
    await expect.poll(() => node(page, "constant_number").getAttribute("style")).toBe(placed);
    await page.keyboard.press("Control+Shift+z");
    await expect.poll(() => node(page, "constant_number").getAttribute("style")).toBe(moved);
    await select(page, "constant_number");
    await page
      .getByRole("region", { name: "Inspector" })
      .getByRole("spinbutton", { name: /^value/ })
      .fill("7");
    await select(page, "constant_number");
    await page.keyboard.press("Control+c");
    await page.keyboard.press("Control+v");
    await node(page, "constant_number_2").waitFor();
    await page.keyboard.press("Control+d");
    await expect.poll(() => nodes(page).count()).toBe(3);
    // The copies carry the value.
    expect(await node(page, "constant_number_2").textContent()).toContain("7");
    await select(page, "constant_number_2");
    await page.keyboard.press("Delete");
    await expect.poll(() => nodes(page).count()).toBe(2);
    // Focus goes to a node left (not the page), so the keyboard goes on from there: Ctrl+Z at once.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.matches(".react-flow__node[data-id]") ?? false))
      .toBe(true);
    await page.keyboard.press("Control+z");
    await expect.poll(() => nodes(page).count()).toBe(3);

    // Several at once (Ctrl+click), deleted together and back with one undo.
    await select(page, "constant_number");
    await node(page, "constant_number_2_2")
      .locator(".wf-node-title")
      .click({ modifiers: ["Control"] });
    await page.getByRole("region", { name: "Inspector" }).getByText("2 nodes are selected").waitFor();
    await page.keyboard.press("Delete");
    await expect.poll(() => nodes(page).count()).toBe(1);
    await focusCanvas(page);
    await page.keyboard.press("Control+z");
    await expect.poll(() => nodes(page).count()).toBe(3);

    // Inside the code editor, Ctrl+Z is the editor's own: the text goes back, the graph stays.
    const code = page.getByRole("textbox", { name: "Action" });
    await code.click();
    await page.keyboard.press("ControlOrMeta+End");
    await page.keyboard.type("// typed");
    await page.keyboard.press("Control+z");
    await expect.poll(() => code.textContent()).not.toContain("// typed");
    expect(await nodes(page).count()).toBe(3);
  });

  it("lists jobs from the server after a reload, and the picker follows a workflow an action creates", async () => {
    await using app = await openApp();
    const { page } = app;
    await newWorkflow(page, "Listed");
    await addNode(page, "number", "constant.number");
    // "Save first": the draft is saved before it runs.
    await page.getByRole("checkbox", { name: "Save first" }).check();
    await page.getByRole("button", { name: "Run workflow" }).click();
    await page.getByRole("status", { name: "Number: done" }).waitFor();
    await page.getByText("Listed · version 2").waitFor();
    await page.reload();
    await openTab(page, "Jobs");
    await page.getByRole("region", { name: "Jobs" }).getByRole("listitem", { name: "Listed: completed" }).waitFor();

    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await openTab(page, "Action");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
export default (await workflows.create("Made by an action")).name;`,
    );
    expect(await finished(page)).toContain("Made by an action");
    const picker = page.getByRole("combobox", { name: "Workflow" });
    await expect.poll(() => picker.locator("option").allTextContents()).toContain("Made by an action");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const { workflows: all } = await workflows.list({ query: "Made by" });
await workflows.update({ workflow_id: all[0].id, name: "Renamed by an action" });
export default "ok";`,
    );
    await expect.poll(() => picker.locator("option").allTextContents()).toContain("Renamed by an action");
    expect(await picker.locator("option").allTextContents()).not.toContain("Made by an action");

    // The open workflow deleted by an action: the editor says so and keeps the draft, which can be saved anew.
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const { workflows: all } = await workflows.list({ query: "Listed" });
await workflows.delete(all[0].id);
export default "deleted";`,
    );
    const gone = page.getByRole("alert").filter({ hasText: "This workflow was deleted elsewhere" });
    await gone.waitFor();
    await expect.poll(() => picker.locator("option").allTextContents()).not.toContain("Listed");
    await gone.getByRole("button", { name: "Save as a new workflow" }).click();
    await expect.poll(() => picker.locator("option").allTextContents()).toContain("Listed");
    await gone.waitFor({ state: "detached" });
    const stored = (await app.server.app.store
      .sql("SELECT name, graph FROM workflows WHERE name = 'Listed'")
      .all()) as {
      graph: string;
    }[];
    expect(stored.map((w) => JSON.parse(w.graph).nodes.map((n: { type: string }) => n.type))).toEqual([
      ["constant.number"],
    ]);
  });

  it("asks once before the first run of a graph that writes, runs its effects as the user, and Cancel stops a job", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await page.setViewportSize({ width: 1400, height: 900 });
    await newWorkflow(page, "Remembers");
    await addNode(page, "save memory", "memory.save");
    await select(page, "memory_save");
    await page
      .getByRole("region", { name: "Inspector" })
      .getByRole("textbox", { name: /^content/ })
      .fill("ran by hand");
    // A node once shown on the canvas is never hidden again while job events redraw it (React Flow
    // hides a node it has no size for, until it measures it again: the size must be kept).
    await page.evaluate(() => {
      const seen = new WeakSet<Element>();
      const state = { rehidden: 0 };
      (window as unknown as { canvasNodes: typeof state }).canvasNodes = state;
      const check = (el: Element) => {
        if (!(el instanceof HTMLElement) || !el.classList.contains("react-flow__node")) return;
        if (el.style.visibility !== "hidden") seen.add(el);
        else if (seen.has(el)) state.rehidden++;
      };
      new MutationObserver((records) => {
        for (const record of records) check(record.target as Element);
      }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["style"] });
      for (const el of document.querySelectorAll(".react-flow__node")) check(el);
    });
    await page.getByRole("button", { name: "Run workflow" }).click();
    const confirm = page.getByRole("group", { name: "Confirm the run" });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain("write");
    expect(await confirm.textContent()).toContain("save_memory");
    await confirm.getByRole("button", { name: "Yes, run it" }).click();
    await page.getByRole("status", { name: "Save memory: done" }).waitFor();
    // The second run does not ask again, and neither run prompted for the write.
    await page.getByRole("button", { name: "Run workflow" }).click();
    await expect
      .poll(async () => await server.app.store.sql("SELECT count(*) AS n FROM memories").get())
      .toEqual({ n: 2 });
    expect(await confirm.count()).toBe(0);
    expect(await server.app.store.sql("SELECT count(*) AS n FROM approvals").get()).toEqual({ n: 0 });

    // A long job, cancelled from the editor.
    await addNode(page, "delay", "control.delay");
    await select(page, "control_delay");
    await page.getByRole("region", { name: "Inspector" }).getByRole("spinbutton", { name: /^ms/ }).fill("60000");
    await select(page, "memory_save");
    await page.keyboard.press("Delete");
    await page.getByRole("button", { name: "Run workflow" }).click();
    await page.getByRole("status", { name: "Delay: running" }).waitFor();
    await page.getByRole("toolbar", { name: "Workflow" }).getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("status", { name: /Delay: (cancelled|skipped)/ }).waitFor();
    await expect
      .poll(async () => await server.app.store.sql("SELECT status FROM jobs ORDER BY created_at DESC LIMIT 1").get())
      .toEqual({ status: "cancelled" });
    expect(await page.evaluate(() => (window as unknown as { canvasNodes: { rehidden: number } }).canvasNodes)).toEqual(
      {
        rehidden: 0,
      },
    );
    expect(app.problems).toEqual([]);
  });

  it("uploads an image in the inspector's asset field and runs an image node on it; the panel resizes and collapses", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.setViewportSize({ width: 1400, height: 900 });
    await newWorkflow(page, "Gray");
    await addNode(page, "grayscale", "image.grayscale");
    await select(page, "image_grayscale");
    const inspector = page.getByRole("region", { name: "Inspector" });
    const png = await sharp({ create: { width: 4, height: 2, channels: 3, background: "#c00" } })
      .png()
      .toBuffer();
    await inspector.getByLabel("Upload image").setInputFiles({ name: "red.png", mimeType: "image/png", buffer: png });
    // The picked image shows, named by its file's name.
    const preview = inspector.getByRole("img", { name: "red.png" });
    await expect.poll(() => preview.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(4);
    const chosen = await inspector.getByRole("combobox", { name: /^image/ }).inputValue();
    expect(chosen).toMatch(/^ast_/);
    await page.getByRole("button", { name: "Run workflow" }).click();
    await page.getByRole("group", { name: "Confirm the run" }).getByRole("button", { name: "Yes, run it" }).click();
    await page.getByRole("status", { name: "Grayscale image: done" }).waitFor();
    // The node names what it made by the new asset's file name.
    await expect
      .poll(() => node(page, "image_grayscale").locator(".wf-preview").textContent())
      .toContain("→ output: red-gray.png, metadata: ");
    // The image it made shows on the node, a new asset (gray), not the red one it read.
    const thumb = node(page, "image_grayscale").getByRole("img", { name: "Grayscale image: output image" });
    await expect.poll(() => thumb.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(4);
    expect(await thumb.getAttribute("src")).not.toContain(chosen);

    // At the panel's default width the tabs stand in one row beside Hide panel, whichever is selected
    // (a selected tab's bold label must not push the last one to a second row).
    for (const name of ["Jobs", "Agent", "Action"]) {
      await page.getByRole("tab", { name }).click();
      const rows = new Set<number>();
      for (const tab of await page.getByRole("tab").all()) rows.add(Math.round((await tab.boundingBox())?.y ?? -1));
      expect([...rows], `tab rows with ${name} selected`).toHaveLength(1);
    }

    // The panel: wider with the separator's arrow keys, then hidden, which gives the canvas the room.
    const separator = page.getByRole("separator", { name: "Resize the panel" });
    const before = Number(await separator.getAttribute("aria-valuenow"));
    await separator.focus();
    await page.keyboard.press("ArrowLeft");
    await expect.poll(async () => Number(await separator.getAttribute("aria-valuenow"))).toBe(before + 20);
    const canvas = page.getByRole("region", { name: "Workflow canvas" });
    const narrow = (await canvas.boundingBox())?.width ?? 0;
    await page.getByRole("button", { name: "Hide panel" }).click();
    await expect.poll(async () => (await canvas.boundingBox())?.width ?? 0).toBeGreaterThan(narrow + 300);
    expect(await page.getByRole("button", { name: "Show panel" }).getAttribute("aria-expanded")).toBe("false");
    await page.getByRole("button", { name: "Show panel" }).click();
    await page.getByRole("textbox", { name: "Action" }).waitFor();

    // As narrow as it goes (Shift+ArrowRight steps of 80 px): every tab is in view, none under the button.
    await separator.focus();
    for (let i = 0; i < 5; i++) await page.keyboard.press("Shift+ArrowRight");
    await expect.poll(async () => Number(await separator.getAttribute("aria-valuenow"))).toBe(280);
    const hide = await page.getByRole("button", { name: "Hide panel" }).boundingBox();
    const panel = await page.getByRole("complementary", { name: "Agent panel" }).boundingBox();
    for (const tab of await page.getByRole("tab").all()) {
      const box = await tab.boundingBox();
      if (!box || !hide || !panel) throw new Error("not laid out");
      expect(box.x + box.width).toBeLessThanOrEqual(panel.x + panel.width);
      const overlaps =
        box.x < hide.x + hide.width &&
        hide.x < box.x + box.width &&
        box.y < hide.y + hide.height &&
        hide.y < box.y + box.height;
      expect(overlaps, `${await tab.textContent()} under Hide panel`).toBe(false);
    }
  });
});
