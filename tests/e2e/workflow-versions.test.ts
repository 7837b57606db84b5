/**
 * A workflow's earlier versions, as a person gets back what a save (theirs, another tab's, an agent's)
 * replaced: `More` > `Versions` lists them newest first; `Open` puts one's graph on the canvas as an
 * unsaved draft, which Undo takes back and Save keeps as the newest version, losing none.
 */
import { describe, expect, it } from "vitest";
import { openApp } from "./browser.ts";
import { addNode, newWorkflow, node, workflowAction } from "./editor.ts";
import { finished, runAction } from "./panel.ts";

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
      "Version 3 · saved … · 2 nodes, 0 connections · named “Kept”Open",
      "Version 2 · saved … · 1 node, 0 connections · named “Kept”Open",
      "Version 1 · saved … · 0 nodes, 0 connections · named “Kept”Open",
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
});
