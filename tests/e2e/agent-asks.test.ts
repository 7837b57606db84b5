/**
 * The editor and the jobs list begin questions for the agent: `Ask the agent` on a node's menu or on a
 * failed job puts the question's start in Message (after what the person was writing), on the Agent
 * tab, the panel opened if it was hidden, the cursor after it; nothing is sent until the person sends.
 */
import { describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { agent, conversation } from "./agent-page.ts";
import { openApp } from "./browser.ts";
import { addNode, newWorkflow, node, openTab } from "./editor.ts";
import { finished, runAction } from "./panel.ts";

describe("questions for the agent begun elsewhere on the page", () => {
  it("begins one about a node from its menu: the hidden panel opens on the Agent tab, the person finishes and sends it", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "It counts the characters of a text." }] });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await newWorkflow(page, "Asks");
    await addNode(page, "text length", "text.length");
    await openTab(page, "Action");
    await page.getByRole("button", { name: "Hide panel" }).click();

    await node(page, "text_length").locator(".wf-node-title").click({ button: "right" });
    await page.getByRole("menu").getByRole("menuitem", { name: "Ask the agent" }).click();
    expect(await page.getByRole("tab", { name: "Agent" }).getAttribute("aria-selected")).toBe("true");
    const box = page.getByRole("textbox", { name: "Message" });
    const begun = 'About the node "text_length" (text.length) in the workflow "Asks": ';
    await expect.poll(() => box.inputValue()).toBe(begun);
    await expect
      .poll(() =>
        box.evaluate(
          (el) =>
            el === document.activeElement &&
            (el as HTMLTextAreaElement).selectionStart === (el as HTMLTextAreaElement).value.length,
        ),
      )
      .toBe(true);
    expect(fake.requests).toHaveLength(0);
    await page.keyboard.type("what does it do?");
    await page.keyboard.press("Enter");
    await conversation(page).getByText("It counts the characters of a text.").waitFor();
    expect(JSON.stringify(fake.requests[0])).toContain(JSON.stringify(`${begun}what does it do?`).slice(1, -1));

    // On the empty canvas, the question is about the workflow.
    const canvas = await page.getByRole("region", { name: "Workflow canvas" }).boundingBox();
    if (!canvas) throw new Error("no canvas");
    await page.mouse.click(canvas.x + 20, canvas.y + 20, { button: "right" });
    await page.getByRole("menu", { name: "Canvas actions" }).getByRole("menuitem", { name: "Ask the agent" }).click();
    await expect.poll(() => box.inputValue()).toBe('About the workflow "Asks": ');
    expect(app.problems).toEqual([]);
  });

  it("begins one about a failed job from the Jobs tab (after what the person was writing) or the editor's run outcome", async () => {
    await using fake = await startFakeOpenAI({ script: [] });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("Hello.");
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await openTab(page, "Action");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const broken = await workflows.create({
  name: "Broken",
  graph: { nodes: [{ id: "e", type: "math.divide", data: { a: 1, b: 0 }, position: { x: 0, y: 0 } }], edges: [] },
});
export default (await workflows.run(broken.id)).status;`,
    );
    expect(await finished(page)).toContain('"failed"');
    await openTab(page, "Jobs");
    const failed = page.getByRole("region", { name: "Jobs" }).getByRole("listitem", { name: "Broken: failed" });
    await failed.getByRole("button", { name: "Ask the agent why Broken failed" }).click();
    expect(await page.getByRole("tab", { name: "Agent" }).getAttribute("aria-selected")).toBe("true");
    await expect
      .poll(() => box.inputValue())
      .toMatch(/^Hello\.\n\nThe job of the workflow "Broken" failed at node "e": \w+: .+ $/);

    // Run from the editor, the run's outcome beside Run workflow begins the same question.
    await box.fill("");
    await page.getByRole("combobox", { name: "Workflow" }).selectOption({ label: "Broken" });
    await page.getByText("Broken · version 1").waitFor();
    await page.getByRole("button", { name: "Run workflow" }).click();
    const outcome = page.getByRole("status", { name: "Last run" });
    await outcome.getByText("Failed at Divide").waitFor();
    await openTab(page, "Action");
    await outcome.getByRole("button", { name: "Ask the agent" }).click();
    expect(await page.getByRole("tab", { name: "Agent" }).getAttribute("aria-selected")).toBe("true");
    await expect
      .poll(() => box.inputValue())
      .toMatch(/^The job of the workflow "Broken" failed at node "e": \w+: .+ $/);
    expect(fake.requests).toHaveLength(0);
    expect(app.problems).toEqual([]);
  });
});
