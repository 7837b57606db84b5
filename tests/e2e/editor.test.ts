import { describe, expect, it } from "vitest";
import { WORKFLOWS } from "../support/server.ts";
import { accessibilityProblems } from "./a11y.ts";
import { holdIndexedDb, openApp } from "./browser.ts";
import { addNode as addFromPalette, connect, draftKept, newWorkflow, select, workflowAction } from "./editor.ts";

/** A note's first line, long enough to wrap on the canvas. */
const ABOUT = "Adds two numbers: the one set in A and the one set in B; the output shows their sum.";

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

    // Connect constant.string's output to text.length's input through the handles (real mouse moves;
    // a drag that began while the view still moved after the drag above is tried again).
    await connect(page, { node: "constant_string", handle: "output" }, { node: "text_length", handle: "text" });
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

  it("adds a note (found as a comment too) whose text shows on the canvas, written on a double-click; a run leaves it out", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await newWorkflow(page, "Noted");
    await addFromPalette(page, "comment", "canvas.note");
    const note = page.locator('.react-flow__node[data-id="canvas_note"]');
    await note.getByText("An empty note: double-click to write.").waitFor();
    // Its text in the Inspector (the field keeps its lines); no connections to make.
    const text = page.getByRole("region", { name: "Inspector" }).getByRole("textbox", { name: "text" });
    await text.fill(`${ABOUT}\nSet them in the Add node.`);
    await note.getByText("Set them in the Add node.").waitFor();
    expect(await note.locator(".react-flow__handle").count()).toBe(0);
    await addFromPalette(page, "add", "math.add");
    // A double-click on the note writes it in place, the cursor after its text; Escape ends the writing
    // (focus back on the note), and however many keys it took, it is one undo step.
    await note.dblclick();
    const writing = note.getByRole("textbox", { name: "Note text" });
    await expect.poll(() => writing.evaluate((field) => field === document.activeElement)).toBe(true);
    // As tall as its text, wrapped lines too: nothing hides behind a scroll.
    const hidden = () => writing.evaluate((field) => field.scrollHeight - field.clientHeight);
    expect(await hidden()).toBeLessThanOrEqual(0);
    await page.keyboard.type(" Then run.");
    expect(await hidden()).toBeLessThanOrEqual(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.keyboard.press("Escape");
    await writing.waitFor({ state: "detached" });
    await note.getByText("Set them in the Add node. Then run.").waitFor();
    expect(await note.evaluate((element) => element === document.activeElement)).toBe(true);
    await expect.poll(() => text.inputValue()).toBe(`${ABOUT}\nSet them in the Add node. Then run.`);
    const shown = () => note.locator(".wf-note-text").textContent();
    await page.getByRole("button", { name: "Undo" }).click();
    await expect.poll(shown).toBe(`${ABOUT}\nSet them in the Add node.`);
    await page.getByRole("button", { name: "Redo" }).click();
    await expect.poll(shown).toBe(`${ABOUT}\nSet them in the Add node. Then run.`);
    // Enter on the focused note writes it too (Ctrl+Enter ends); so does the menu's Edit text, and a click
    // elsewhere ends it.
    await note.focus();
    await page.keyboard.press("Enter");
    await writing.waitFor();
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Control+Enter");
    await writing.waitFor({ state: "detached" });
    await note.click({ button: "right" });
    await page.getByRole("menuitem", { name: /^Edit text/ }).click();
    await expect.poll(() => writing.evaluate((field) => field === document.activeElement)).toBe(true);
    await page.keyboard.type("!");
    await page.locator(".react-flow__pane").click({ position: { x: 5, y: 5 } });
    await writing.waitFor({ state: "detached" });
    expect(await shown()).toBe(`${ABOUT}\nSet them in the Add node. Then run!`);
    await page.getByRole("button", { name: "Run workflow" }).click();
    // One node ran: the note is not among them, and shows no run.
    await page.getByText(/^Completed in /).waitFor();
    const job = (await server.app.store.sql("SELECT total, status FROM jobs").get()) as {
      total: number;
      status: string;
    };
    expect(job).toEqual({ total: 1, status: "completed" });
    expect(await note.locator(".wf-status").count()).toBe(0);
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Noted · version 2").waitFor();
    const stored = (await server.app.store.sql("SELECT graph FROM workflows").get()) as { graph: string };
    expect(JSON.parse(stored.graph).nodes[0]).toMatchObject({
      type: "canvas.note",
      data: {
        text: `${ABOUT}\nSet them in the Add node. Then run!`,
      },
    });
    expect(app.problems).toEqual([]);
  });

  it("keeps an unsaved draft across a reload; a save from a second tab shows there, or beside a draft asks", async () => {
    await using app = await openApp();
    const { page, context } = app;
    await newWorkflow(page, "Shared");
    await addFromPalette(page, "number", "constant.number");
    await draftKept(page);
    await page.reload();
    await page.getByText("Shared · version 1 · unsaved draft").waitFor();
    await expect.poll(() => page.locator(".react-flow__node[data-id]").count()).toBe(1);
    // An edit whose IndexedDB write cannot finish before the page goes is kept too: here the store is
    // held (as by a slow disk) and the page reloads right after Ctrl+D.
    await select(page, "constant_number");
    await holdIndexedDb(page);
    await page.keyboard.press("ControlOrMeta+d");
    await page.reload();
    await page.getByText("Shared · version 1 · unsaved draft").waitFor();
    await expect.poll(() => page.locator(".react-flow__node[data-id]").count()).toBe(2);

    const other = await context.newPage();
    await other.goto(app.server.url);
    await other.getByText("Shared · version 1").waitFor();
    await addFromPalette(other, "boolean", "constant.boolean");
    await other.getByRole("button", { name: "Save" }).click();
    await other.getByText("Shared · version 2").waitFor();

    // This page has a draft: it stays, and the page says at once that a newer version exists. (The tab
    // acted in comes to the front first: a background tab's frames are throttled, which slows every click.)
    await page.bringToFront();
    const banner = page.getByRole("alert").filter({ hasText: "Version 2 of this workflow was saved elsewhere" });
    await banner.waitFor();
    await addFromPalette(page, "json", "constant.json");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await banner.waitFor();
    const stored = async () =>
      await app.server.app.store.sql("SELECT version, graph FROM workflows WHERE name = 'Shared'").get();
    expect(await stored()).toMatchObject({ version: 2 });
    await banner.getByRole("button", { name: "Load version 2" }).click();
    await page.getByText("Shared · version 2", { exact: true }).waitFor();
    await banner.waitFor({ state: "detached" });
    expect(await page.locator(".react-flow__node[data-id='constant_json']").count()).toBe(0);

    // Again, and this time the draft is saved over the other tab's version, which Versions keeps.
    await addFromPalette(page, "json", "constant.json");
    await other.bringToFront();
    await addFromPalette(other, "text", "constant.string");
    await other.getByRole("button", { name: "Save", exact: true }).click();
    await other.getByText("Shared · version 3").waitFor();
    await page.bringToFront();
    const again = page.getByRole("alert").filter({ hasText: "Version 3 of this workflow was saved elsewhere" });
    await again.getByRole("button", { name: "Save my draft" }).click();
    await page.getByText("Shared · version 4", { exact: true }).waitFor();
    await again.waitFor({ state: "detached" });
    const saved = (await stored()) as { version: number; graph: string };
    expect(JSON.parse(saved.graph).nodes.map((n: { type: string }) => n.type)).toContain("constant.json");
    const kept = await app.server.app.store.sql("SELECT version FROM workflow_versions ORDER BY version").all();
    expect(kept).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
    // The other tab had no draft: it shows version 4 at once.
    await other.getByText("Shared · version 4", { exact: true }).waitFor();
    await expect.poll(() => other.locator(".react-flow__node[data-id='constant_json']").count()).toBe(1);
  });
});

describe("a draft and a newer version saved elsewhere", () => {
  it("keeps a draft made on an older version, across a reload too, and never saves it over the newer one unasked", async () => {
    await using app = await openApp();
    const { page, server, context } = app;
    await newWorkflow(page, "Base");
    // A second tab on it, with no changes of its own.
    const other = await context.newPage();
    await other.goto(server.url);
    await other.getByText("Base · version 1", { exact: true }).waitFor();
    await page.bringToFront();
    await addFromPalette(page, "number", "constant.number");
    await page.getByText("Base · version 1 · unsaved draft").waitFor();

    // A script (an agent through the API) saves the workflow meanwhile.
    const id = await page.evaluate(() => new URL(location.href).searchParams.get("workflow"));
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const graph = { nodes: [{ id: "theirs", type: "constant.string", data: { value: "x" } }], edges: [] };
    expect(
      await server.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "update", args: [id, { graph }] }),
    ).toMatchObject({ ok: true, value: { version: 2 } });

    const banner = page.getByRole("alert").filter({ hasText: "Version 2 of this workflow was saved elsewhere" });
    await banner.waitFor();
    // The clean tab shows version 2 at once (and leaves this tab's kept draft be).
    await other.getByText("Base · version 2", { exact: true }).waitFor();
    await other.locator(".react-flow__node[data-id='theirs']").waitFor();
    // A reload keeps the draft on the version it was made on, and says so again.
    await page.reload();
    await page.getByText("Base · version 1 · unsaved draft").waitFor();
    await banner.waitFor();
    await page.locator(".react-flow__node[data-id='constant_number']").waitFor();
    // Save does not replace version 2 unasked.
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await banner.waitFor();
    const stored = () =>
      server.app.store.sql("SELECT version, graph FROM workflows").get() as Promise<{ version: number; graph: string }>;
    expect((await stored()).version).toBe(2);
    // Asked, it does; version 2 is kept.
    await banner.getByRole("button", { name: "Save my draft" }).click();
    await page.getByText("Base · version 3", { exact: true }).waitFor();
    expect(JSON.parse((await stored()).graph).nodes.map((n: { id: string }) => n.id)).toEqual(["constant_number"]);
    expect(await server.app.store.sql("SELECT version FROM workflow_versions ORDER BY version").all()).toEqual([
      { version: 1 },
      { version: 2 },
    ]);
    await page.reload();
    await page.getByText("Base · version 3", { exact: true }).waitFor();
    expect(await banner.count()).toBe(0);
    expect(app.problems).toEqual([]);
  });
});

describe("a clean canvas following saves made elsewhere", () => {
  it("ends on the newest of many quick saves (saves heard while it reads are read once more after)", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await newWorkflow(page, "Busy");
    const id = await page.evaluate(() => new URL(location.href).searchParams.get("workflow"));
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    // A script saves it 30 times in a row, each time with one more node.
    const nodes: { id: string; type: string; data: Record<string, unknown> }[] = [];
    for (let i = 0; i < 30; i++) {
      nodes.push({ id: `n${i}`, type: "constant.number", data: { value: i } });
      const saved = await server.script.run.invoke.mutate({
        runId,
        module: WORKFLOWS,
        export: "update",
        args: [id, { graph: { nodes, edges: [] } }],
      });
      expect(saved).toMatchObject({ ok: true });
    }
    await page.getByText("Busy · version 31", { exact: true }).waitFor();
    await expect.poll(() => page.locator(".react-flow__node[data-id]").count()).toBe(30);
    expect(app.problems).toEqual([]);
  });
});

describe("renaming and deleting a workflow from the editor", () => {
  it("renames in place by keyboard (Escape cancels, a refused name says why), and other tabs follow", async () => {
    await using app = await openApp();
    const { page, context, server } = app;
    await newWorkflow(page, "Draft name");
    const other = await context.newPage();
    await other.goto(server.url);
    await other.getByText("Draft name · version 1").waitFor();

    const name = page.getByRole("button", { name: "Rename workflow Draft name" });
    const field = page.getByRole("textbox", { name: "Workflow name" });
    const focused = (locator: typeof field) => locator.evaluate((el) => el === document.activeElement);
    await name.focus();
    await page.keyboard.press("Enter");
    expect(await focused(field)).toBe(true);
    await page.keyboard.type("Never saved");
    await page.keyboard.press("Escape");
    await page.getByText("Draft name · version 1").waitFor();
    expect(await field.count()).toBe(0);

    // An empty name and a name past 200 characters: the server's reason, the field stays open.
    await name.focus();
    await page.keyboard.press("Enter");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Enter");
    await page.getByRole("alert").getByText("cannot be empty").waitFor();
    expect(await page.getByRole("alert").textContent()).toBe(
      "Not renamed. A workflow needs a name; it cannot be empty.",
    );
    await field.fill("x".repeat(201));
    await field.press("Enter");
    await page.getByRole("alert").getByText("at most 200 characters").waitFor();
    await field.press("Escape");
    await page.getByText("Draft name · version 1").waitFor();

    await name.focus();
    await page.keyboard.press("Enter");
    await page.keyboard.type("Renamed flow");
    await page.keyboard.press("Enter");
    await page.getByText("Renamed flow · version 2").waitFor();
    // Focus goes back to the name, so the keyboard can go on from there.
    await expect.poll(() => focused(page.getByRole("button", { name: "Rename workflow Renamed flow" }))).toBe(true);

    // The other tab's picker, title and version follow the change feed (it has no draft to keep).
    await other.getByText("Renamed flow · version 2").waitFor();
    await expect.poll(() => other.locator("select option", { hasText: "Renamed flow" }).count()).toBe(1);
    expect(await other.locator("select option", { hasText: "Draft name" }).count()).toBe(0);

    await page.reload();
    await page.getByText("Renamed flow · version 2").waitFor();
    expect(await server.app.store.sql("SELECT name FROM workflows").all()).toEqual([{ name: "Renamed flow" }]);
    await server.app.audit.flush();
    // The refused names were audited too; every row is the person's own act.
    expect(
      await server.app.store.sql("SELECT DISTINCT actor FROM audit WHERE capability = 'update_workflow'").all(),
    ).toEqual([{ actor: "user" }]);
    expect(app.problems).toEqual([]);
  });

  it("deletes after a confirmation naming the workflow (Escape cancels), then opens another or the empty state", async () => {
    await using app = await openApp();
    const { page, context, server } = app;
    await newWorkflow(page, "Keep me");
    await newWorkflow(page, "Throw away");
    const other = await context.newPage();
    await other.goto(server.url);
    await other.getByText("Throw away · version 1").waitFor();
    // The person is back on the first tab (a tab behind another draws its frames slowly).
    await page.bringToFront();
    const names = async () =>
      ((await server.app.store.sql("SELECT name FROM workflows ORDER BY name").all()) as { name: string }[]).map(
        (row) => row.name,
      );

    const more = page.getByRole("button", { name: "More workflow actions" });
    const focused = (locator: typeof more) => locator.evaluate((el) => el === document.activeElement);
    const dialog = page.getByRole("alertdialog", { name: "Delete “Throw away”?" });
    await workflowAction(page, "Delete");
    await dialog.waitFor();
    expect(await focused(dialog.getByRole("button", { name: "Cancel" }))).toBe(true);
    // Escape keeps it, and focus is back on the menu's button.
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => focused(more)).toBe(true);
    await page.reload();
    await page.getByText("Throw away · version 1").waitFor();
    expect(await names()).toEqual(["Keep me", "Throw away"]);

    // By keyboard: ArrowUp opens the menu on its last item, Delete; Escape closes it, back on the button;
    // ArrowDown opens it on its first; End goes to Delete, Enter opens the dialog, Tab moves from Cancel
    // to Delete, Enter deletes.
    const menu = page.getByRole("menu", { name: "Workflow actions" });
    await more.focus();
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => focused(menu.getByRole("menuitem", { name: "Delete" }))).toBe(true);
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    expect(await focused(more)).toBe(true);
    expect(await more.getAttribute("aria-expanded")).toBe("false");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => focused(menu.getByRole("menuitem", { name: "Duplicate" }))).toBe(true);
    expect(await more.getAttribute("aria-expanded")).toBe("true");
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await dialog.waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByText("Keep me · version 1").waitFor();
    expect(await names()).toEqual(["Keep me"]);
    // This page deleted it: no "deleted elsewhere" banner here; the other tab is told, and its picker follows.
    expect(await page.getByText("deleted elsewhere").count()).toBe(0);
    await other.getByText("deleted elsewhere").waitFor();
    await expect.poll(() => other.locator("select option", { hasText: "Throw away" }).count()).toBe(0);

    await page.reload();
    await page.getByText("Keep me · version 1").waitFor();
    expect(await page.locator("select option", { hasText: "Throw away" }).count()).toBe(0);

    // A click on the button closes the menu it opened.
    await more.click();
    await menu.waitFor();
    await more.click();
    await menu.waitFor({ state: "detached" });
    await workflowAction(page, "Delete");
    await page.getByRole("alertdialog", { name: "Delete “Keep me”?" }).getByRole("button", { name: "Delete" }).click();
    await page.getByText("Open a workflow or create a new one.").waitFor();
    await page.reload();
    await page.getByText("Open a workflow or create a new one.").waitFor();
    expect(await names()).toEqual([]);
    await server.app.audit.flush();
    expect(await server.app.store.sql("SELECT actor FROM audit WHERE capability = 'delete_workflow'").all()).toEqual([
      { actor: "user" },
      { actor: "user" },
    ]);
    expect(await server.app.store.sql("SELECT count(*) AS n FROM approvals").get()).toEqual({ n: 0 });
    expect(app.problems).toEqual([]);
  });

  it("describes the workflow in the inspector with no node selected; other tabs and the workflow list follow", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await newWorkflow(page, "Described");
    const details = page.getByRole("region", { name: "Inspector" }).getByRole("region", { name: "This workflow" });
    await details.getByText("0 nodes · 0 connections").waitFor();
    const field = details.getByRole("textbox", { name: "Description" });
    const stored = async () =>
      (await server.app.store.sql("SELECT description, version FROM workflows WHERE name = 'Described'").get()) as {
        description: string;
        version: number;
      };

    // Leaving the field saves it; the version moves on, and a Save after it is no conflict.
    await field.fill("Adds two numbers");
    await page.keyboard.press("Tab");
    await details.getByText("Description saved.").waitFor();
    expect(await stored()).toEqual({ description: "Adds two numbers", version: 2 });
    await page.getByText("Described · version 2").waitFor();
    // Escape puts back what is stored.
    await field.fill("Something else");
    await field.press("Escape");
    expect(await field.inputValue()).toBe("Adds two numbers");

    // Another tab on it follows a change made here (Ctrl+Enter saves without leaving the field).
    const other = await app.newPage();
    await other.goto(page.url());
    const otherField = other.getByRole("textbox", { name: "Description" });
    await expect.poll(() => otherField.inputValue()).toBe("Adds two numbers");
    await page.bringToFront();
    await field.fill("Adds two numbers, then doubles");
    await field.press("Control+Enter");
    await details.getByText("Description saved.").waitFor();
    await expect.poll(() => otherField.inputValue()).toBe("Adds two numbers, then doubles");

    await addFromPalette(page, "add", "math.add");
    await details.waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Described · version 4").waitFor();
    expect(await stored()).toEqual({ description: "Adds two numbers, then doubles", version: 4 });

    // The list of workflows (nothing open) shows it under the name.
    await other.goto(`${server.url}/?workflow=wf_missing`);
    await other
      .getByRole("navigation", { name: "Your workflows" })
      .getByRole("listitem")
      .getByText("Adds two numbers, then doubles")
      .waitFor();
    expect(app.problems).toEqual([]);
  });

  it("lists the keyboard shortcuts on ? and from the canvas controls; Escape or Close gives focus back", async () => {
    await using app = await openApp();
    const { page } = app;
    await newWorkflow(page, "Keys");
    await addFromPalette(page, "add", "math.add");
    const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    const focusedName = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el?.getAttribute("aria-label") ?? el?.dataset.id ?? el?.textContent?.trim() ?? "";
      });
    // The new node has focus; ? opens the list with focus on Close; Escape closes it, focus back on the node.
    await expect
      .poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.id))
      .toBe("math_add");
    await page.keyboard.press("?");
    await dialog.waitFor();
    await dialog.getByRole("row", { name: "Ctrl/Cmd+S Save", exact: true }).waitFor();
    expect(await focusedName()).toBe("Close");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.id)).toBe("math_add");
    // The ? among the canvas controls does the same; Close gives focus back to it.
    const button = page.getByRole("button", { name: "Keyboard shortcuts" });
    await button.click();
    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await focusedName()).toBe("Keyboard shortcuts");
    // In a text field ? is a character.
    const title = page.getByRole("region", { name: "Inspector" }).getByRole("textbox").first();
    await page.locator('.react-flow__node[data-id="math_add"] .wf-node-title').click();
    await title.focus();
    await page.keyboard.press("?");
    expect(await dialog.count()).toBe(0);
    expect(app.problems).toEqual([]);
  });
});
