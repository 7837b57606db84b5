/**
 * The page as assistive technology meets it: an axe-core scan (WCAG 2.1 A and AA, and axe's best
 * practices: names, roles, contrast, landmarks, headings, focusable hidden content) of each screen a
 * person goes through, finding nothing: the start page, a conversation with a step and a table, the
 * editor with a node selected, the palette, the versions dialog, a run's outcome, the Jobs tab, the
 * approval dialog, History, a job's nodes, the narrow layout, and the signed-out page.
 */
import { describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { accessibilityProblems } from "./a11y.ts";
import { action, agent, conversation, send } from "./agent-page.ts";
import { openApp } from "./browser.ts";
import { addNode, newWorkflow, openTab, select, workflowAction } from "./editor.ts";
import { dialog, runAction } from "./panel.ts";

describe("accessibility", () => {
  it("finds no violation on any screen a person goes through, from the start page to signing out", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        { text: "Let me see.", tool_calls: [action('export default [{ a: 1, b: "x" }];')] },
        { text: "Here is a **table**:\n\n| a | b |\n|---|---|\n| 1 | x |" },
      ],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    const found = new Map<string, string[]>();
    const scan = async (screen: string) => found.set(screen, await accessibilityProblems(page));

    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await page.getByRole("button", { name: /Word count/ }).waitFor();
    await scan("start page");
    await send(page, "show me a table");
    await conversation(page).getByText("Here is a").waitFor();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    await conversation(page).getByText("Code", { exact: true }).click();
    await scan("conversation, a step open");

    await newWorkflow(page, "Scan");
    await addNode(page, "note", "canvas.note");
    await page.getByRole("region", { name: "Inspector" }).getByRole("textbox", { name: "text" }).fill("Adds numbers.");
    await addNode(page, "add", "math.add");
    await select(page, "math_add");
    await scan("editor, a node selected");
    await page.keyboard.press("ControlOrMeta+k");
    await page.getByRole("listbox", { name: "Node types" }).waitFor();
    await scan("palette");
    await page.keyboard.press("Escape");
    await workflowAction(page, "Versions");
    await page.getByRole("dialog", { name: "Versions of “Scan”" }).waitFor();
    await scan("versions dialog");
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Run workflow" }).click();
    await page.getByText(/^Completed in /).waitFor();
    await scan("a run's outcome");
    await openTab(page, "Jobs");
    await page.getByRole("region", { name: "Jobs" }).getByRole("listitem").first().waitFor();
    await scan("Jobs tab");

    await openTab(page, "Action");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";\nexport default await workflows.create({ name: "x" });`,
    );
    await dialog(page).waitFor();
    await scan("approval dialog");
    await dialog(page).getByRole("button", { name: "Deny" }).click();
    await openTab(page, "History");
    await scan("History tab");
    // With no workflow open, a job offers to open its workflow; its nodes are listed on Nodes.
    await workflowAction(page, "Close");
    await openTab(page, "Jobs");
    const job = page.getByRole("region", { name: "Jobs" }).getByRole("listitem").first();
    await job.getByRole("button", { name: "Open workflow Scan" }).waitFor();
    await job.getByRole("button", { name: "Nodes" }).click();
    await job.getByRole("table").waitFor();
    await scan("Jobs tab, a job's nodes shown");
    await page.setViewportSize({ width: 390, height: 800 });
    await scan("narrow layout");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("textbox", { name: "Token" }).waitFor();
    await scan("signed out");

    expect(Object.fromEntries(found)).toEqual(Object.fromEntries([...found.keys()].map((screen) => [screen, []])));
    expect(found.size).toBe(12);
    // The scan does find what it looks for: an input with no name added to the page.
    await page.evaluate(() => document.body.append(document.createElement("input")));
    expect((await accessibilityProblems(page)).join("\n")).toContain("label (critical)");
  });
});
