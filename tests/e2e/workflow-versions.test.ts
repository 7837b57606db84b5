/**
 * A workflow's earlier versions, as a person gets back what a save (theirs, another tab's, an agent's)
 * replaced: `More` > `Versions` lists them newest first; `Open` puts one's graph on the canvas as an
 * unsaved draft, which Undo takes back and Save keeps as the newest version, losing none.
 */
import { describe, expect, it } from "vitest";
import { openApp } from "./browser.ts";
import { addNode, newWorkflow, node, select, workflowAction } from "./editor.ts";
import { autoAction, finished, runAction } from "./panel.ts";

describe("workflow versions", () => {
  it("lists the versions a save replaced, opens one as a draft, undoes that, and saves it as the newest", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await newWorkflow(page, "Kept");
    const save = page.getByRole("button", { name: "Save", exact: true });
    await addNode(page, "number", "constant.number");
    await save.click();
    await page.getByText("Kept · version 2").waitFor();
    await addNode(page, "add", "math.add");
    await save.click();
    await page.getByText("Kept · version 3").waitFor();

    // An agent renames it and empties its graph: a save like any other, its version kept too.
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    const id = await page.evaluate(() => new URL(location.href).searchParams.get("workflow"));
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
export default (await workflows.update(${JSON.stringify(id)}, { name: "Emptied", graph: { nodes: [], edges: [] } })).version;`,
    );
    expect(await finished(page)).toContain("4");
    await page.getByText("Emptied · version 4").waitFor();
    await expect.poll(() => node(page, "math_add").count()).toBe(0);

    await workflowAction(page, "Versions");
    const dialog = page.getByRole("dialog", { name: "Versions of “Emptied”" });
    const rows = dialog.getByRole("list", { name: "Earlier versions" }).getByRole("listitem");
    await expect.poll(() => rows.count()).toBe(3);
    const texts = (await rows.allTextContents()).map((t) => t.replace(/saved .*? ·/, "saved … ·"));
    expect(texts).toEqual([
      "Version 3 · saved … · 2 nodes, 0 connections · named “Kept”ChangesOpen",
      "Version 2 · saved … · 1 node, 0 connections · named “Kept”ChangesOpen",
      "Version 1 · saved … · 0 nodes, 0 connections · named “Kept”ChangesOpen",
    ]);
    // Focus is on the newest version's Open: Enter opens it.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")))
      .toBe("Open version 3");
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "detached" });
    await node(page, "math_add").waitFor();
    await node(page, "constant_number").waitFor();
    await page.getByText("Emptied · version 4 · unsaved draft").waitFor();

    // Undo puts back what was there (nothing: the agent's empty graph); Redo the version again.
    await page.getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => node(page, "math_add").count()).toBe(0);
    await page.getByText("Emptied · version 4", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Redo" }).click();
    await node(page, "math_add").waitFor();

    // Saved, it is the newest version; the one it replaced is kept with the rest.
    await save.click();
    await page.getByText("Emptied · version 5").waitFor();
    const stored = (await server.app.store.sql("SELECT graph FROM workflows").get()) as { graph: string };
    expect(JSON.parse(stored.graph).nodes.map((n: { id: string }) => n.id)).toEqual(["constant_number", "math_add"]);
    await workflowAction(page, "Versions");
    await expect.poll(() => rows.count()).toBe(4);
    expect(await rows.first().textContent()).toContain("Version 4 · saved");
    // Escape closes it; focus goes back to More.
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")))
      .toBe("More workflow actions");
    expect(app.problems).toEqual([]);
  });

  it("says how a kept version differs from the canvas: nodes only in one, inputs changed, connections, moves", async () => {
    await using app = await openApp();
    const { page } = app;
    // Version 1, then version 2 (a's value, b gone, c new, out moved), then a new description only.
    const made = await autoAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const node = (id, type, data, x, y = 0, title) => ({ id, type, data, position: { x, y }, ...(title ? { title } : {}) });
const wire = (id, source, target, targetHandle) => ({ id, source, sourceHandle: "output", target, targetHandle });
const add = node("add", "math.add", {}, 200);
const sum = wire("e3", "add", "out", "value");
const wf = await workflows.create({ name: "Calc", graph: {
  nodes: [node("a", "constant.number", { value: 1 }, 0), node("b", "constant.number", { value: 2 }, 0, 0, "Two"), add, node("out", "workflow.output", { name: "sum" }, 400)],
  edges: [wire("e1", "a", "add", "a"), wire("e2", "b", "add", "b"), sum],
} });
await workflows.update(wf.id, { graph: {
  nodes: [node("a", "constant.number", { value: 5 }, 0), node("c", "constant.number", { value: 3 }, 0, 200, "Three"), add, node("out", "workflow.output", { name: "sum" }, 600)],
  edges: [wire("e1", "a", "add", "a"), wire("e4", "c", "add", "b"), sum],
} });
await workflows.update(wf.id, { description: "Adds two numbers." });
export default wf.id;`,
    );
    const id = made.match(/wf_[\w-]+/)?.[0];
    expect(id).toBeDefined();
    await page.goto(`${app.server.url}/?workflow=${id}`);
    await page.getByText("Calc · version 3").waitFor();
    await workflowAction(page, "Versions");
    const dialog = page.getByRole("dialog", { name: "Versions of “Calc”" });
    const changes = (version: number) => dialog.getByRole("region", { name: `Changes in version ${version}` });

    // Version 2 has the canvas's graph (only the description changed since).
    const two = dialog.getByRole("button", { name: "Changes in version 2" });
    await two.click();
    await changes(2).getByText("The same graph as the canvas.").waitFor();
    expect(await two.getAttribute("aria-expanded")).toBe("true");

    await dialog.getByRole("button", { name: "Changes in version 1" }).click();
    const lines = changes(1).getByRole("listitem");
    await expect
      .poll(() => lines.allTextContents())
      .toEqual([
        "Only in version 1: Two.",
        "Only in the canvas: Three.",
        "Changed: Number (value).",
        "1 connection only in version 1, 1 connection only in the canvas.",
        "1 node moved.",
      ]);
    // Compared with the version before each: what each shown version changed (the oldest kept has none).
    const compareWith = dialog.getByRole("combobox", { name: "Compare with" });
    await compareWith.selectOption("the version before each");
    await changes(1).getByText("Not compared: no version before it is kept.").waitFor();
    await expect
      .poll(() => changes(2).getByRole("listitem").allTextContents())
      .toEqual([
        "Only in version 1: Two.",
        "Only in version 2: Three.",
        "Changed: Number (value).",
        "1 connection only in version 1, 1 connection only in version 2.",
        "1 node moved.",
      ]);
    await compareWith.selectOption("the canvas");
    await changes(2).getByText("The same graph as the canvas.").waitFor();
    // Shown again, it compares with the canvas as it is now: an unsaved edit counts.
    await two.click();
    expect(await changes(2).count()).toBe(0);
    expect(await two.getAttribute("aria-expanded")).toBe("false");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await select(page, "a");
    await page.getByRole("spinbutton", { name: "value" }).fill("7");
    await page.getByText("Calc · version 3 · unsaved draft").waitFor();
    await workflowAction(page, "Versions");
    await dialog.getByRole("button", { name: "Changes in version 2" }).click();
    await expect.poll(() => changes(2).getByRole("listitem").allTextContents()).toEqual(["Changed: Number (value)."]);
    expect(app.problems).toEqual([]);
  });
});
