/**
 * Issue 17's "done when", by accessible names: a new user builds `Number 2 -> Add <- Number 40 ->
 * Workflow output` by hand with the palette and the inspector, runs it from the editor, sees each
 * node's status and the output 42, undoes and redoes with the keyboard, and then an action extends
 * the graph far outside the view: the canvas fits the new nodes, and one Ctrl+Z undoes the action.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { accessibilityProblems } from "./a11y.ts";
import { openApp } from "./browser.ts";
import { addNode, connect, focusCanvas, newWorkflow, node, openTab, select } from "./editor.ts";
import { finished, runAction } from "./panel.ts";

const inspector = (page: Page) => page.getByRole("region", { name: "Inspector" });

/** Clicks the empty canvas, so keys go to the canvas (not to a field). */
const edges = (page: Page) => page.locator(".react-flow__edge");

async function inView(page: Page, id: string): Promise<boolean> {
  const canvas = await page.getByRole("region", { name: "Workflow canvas" }).boundingBox();
  const box = await node(page, id).boundingBox();
  if (!canvas || !box) return false;
  return (
    box.x >= canvas.x &&
    box.y >= canvas.y &&
    box.x + box.width <= canvas.x + canvas.width &&
    box.y + box.height <= canvas.y + canvas.height
  );
}

describe("a workflow built by hand in the editor", () => {
  it("builds 2 + 40 with the palette and the inspector, runs it, sees 42, undoes by keyboard, fits an action's nodes", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await page.setViewportSize({ width: 1400, height: 900 });
    await newWorkflow(page, "Answer");

    await addNode(page, "number", "constant.number");
    await select(page, "constant_number");
    await inspector(page)
      .getByRole("spinbutton", { name: /^value/ })
      .fill("2");
    await addNode(page, "number", "constant.number");
    await select(page, "constant_number_2");
    await inspector(page)
      .getByRole("spinbutton", { name: /^value/ })
      .fill("40");
    await addNode(page, "add", "math.add");
    await addNode(page, "output", "workflow.output");
    await select(page, "workflow_output");
    await inspector(page).getByRole("textbox", { name: /^name/ }).fill("answer");
    // The values set in the inspector show on the nodes at once.
    await expect.poll(() => node(page, "constant_number").textContent()).toContain("2");
    await expect.poll(() => node(page, "constant_number_2").textContent()).toContain("40");
    await expect.poll(() => node(page, "workflow_output").textContent()).toContain("answer");

    await connect(page, { node: "constant_number", handle: "output" }, { node: "math_add", handle: "a" });
    await connect(page, { node: "constant_number_2", handle: "output" }, { node: "math_add", handle: "b" });
    await connect(page, { node: "math_add", handle: "output" }, { node: "workflow_output", handle: "value" });
    await expect.poll(() => edges(page).count()).toBe(3);

    await page.getByRole("button", { name: "Run workflow" }).click();
    for (const title of ["Number", "Add", "Workflow output"]) {
      await page
        .getByRole("status", { name: `${title}: done` })
        .first()
        .waitFor();
    }
    await expect.poll(() => node(page, "math_add").locator(".wf-preview").textContent()).toContain("42");
    await expect.poll(() => node(page, "workflow_output").locator(".wf-preview").textContent()).toContain("42");
    // The inspector shows the selected node's last run: done, and its whole output.
    await select(page, "math_add");
    const lastRun = inspector(page).getByRole("region", { name: "Last run" });
    await lastRun.getByText("done", { exact: true }).waitFor();
    expect(await lastRun.textContent()).toContain("42");
    const jobs = page.getByRole("region", { name: "Jobs" });
    await openTab(page, "Jobs");
    await jobs.getByRole("listitem", { name: "Answer: completed" }).waitFor();
    expect(await jobs.textContent()).toContain('"answer": 42');

    // Auto layout puts every node right of what it reads from, in one undo step.
    await page.getByRole("button", { name: "Auto layout" }).click();
    const x = async (id: string) => (await node(page, id).boundingBox())?.x ?? 0;
    await expect.poll(async () => (await x("constant_number")) < (await x("math_add"))).toBe(true);
    expect(await x("math_add")).toBeLessThan(await x("workflow_output"));

    // Undo and redo by keyboard on the canvas: the layout goes back in one step, then the last
    // connection goes, and comes back.
    await focusCanvas(page);
    await page.keyboard.press("Control+z");
    expect(await edges(page).count()).toBe(3);
    await page.keyboard.press("Control+z");
    await expect.poll(() => edges(page).count()).toBe(2);
    await page.keyboard.press("Control+Shift+z");
    await expect.poll(() => edges(page).count()).toBe(3);

    // An action extends the graph far outside the view; the view fits the new node.
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await openTab(page, "Action");
    await runAction(
      page,
      `const g = await openWorkflow();
g.addNode("double", "math.multiply", { b: 2 }, { x: 2600, y: 1400 });
g.connect("math_add", "output", "double", "a");
const done = await g.commit();
export default done.applied;`,
    );
    expect(await finished(page)).toContain("2");
    await node(page, "double").waitFor();
    await expect.poll(() => inView(page, "double")).toBe(true);
    await expect.poll(() => edges(page).count()).toBe(4);
    // The action's commit() is one undo step: both its edits go at once.
    await focusCanvas(page);
    await page.keyboard.press("Control+z");
    await expect.poll(() => node(page, "double").count()).toBe(0);
    expect(await edges(page).count()).toBe(3);

    // Nothing the person did asked for approval; the run's effects and edits were the user's.
    expect(await server.app.store.sql("SELECT count(*) AS n FROM approvals").get()).toEqual({ n: 0 });
    await server.app.audit.flush();
    const acts = await server.app.store
      .sql("SELECT DISTINCT capability FROM audit WHERE actor = 'user' ORDER BY capability")
      .all();
    expect(acts).toEqual(
      expect.arrayContaining([{ capability: "ui_run_workflow" }, { capability: "ui_update_node_data" }]),
    );
    expect(app.problems).toEqual([]);
  });
  it("takes text where any value goes (JSON where it is JSON), as the run inputs do, and saves it so", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await newWorkflow(page, "Loose");
    await addNode(page, "stringify", "json.stringify");
    await select(page, "json_stringify");
    const field = inspector(page).getByRole("textbox", { name: /^value/ });
    const note = inspector(page).getByRole("status").filter({ hasText: "Not valid JSON, so it is taken as text." });
    const saved = async () => {
      const save = page.getByRole("button", { name: "Save", exact: true });
      if (await save.isEnabled()) await save.click();
      const row = (await server.app.store.sql("SELECT graph FROM workflows WHERE name = 'Loose'").get()) as {
        graph: string;
      };
      return JSON.parse(row.graph).nodes[0]?.data.value as unknown;
    };
    // A word is the word, with no complaint (it said "Not valid JSON" and kept nothing).
    await field.fill("drink");
    expect(await note.count()).toBe(0);
    expect(await field.getAttribute("aria-invalid")).toBe("false");
    await expect.poll(saved).toBe("drink");
    // JSON is JSON; text that looks meant as JSON but is not says so, politely, and goes as text.
    await field.fill('{"a": 1}');
    await expect.poll(saved).toEqual({ a: 1 });
    await field.fill('{"a": ');
    await note.waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await expect.poll(saved).toBe('{"a": ');
    await field.fill("5");
    await expect.poll(saved).toBe(5);
    await field.fill('"5"');
    await expect.poll(saved).toBe("5");
    // Shown again as typed: text that would read as JSON keeps its quotes, other text has none.
    await focusCanvas(page);
    await select(page, "json_stringify");
    expect(await field.inputValue()).toBe('"5"');
    await field.fill("tea");
    await focusCanvas(page);
    await select(page, "json_stringify");
    expect(await field.inputValue()).toBe("tea");
    // Where JSON is asked for, JSON it stays: the object of Get by path refuses a bare word.
    await addNode(page, "get by path", "json.get");
    await select(page, "json_get");
    await inspector(page)
      .getByRole("textbox", { name: /^object/ })
      .fill("tea");
    await inspector(page).getByRole("alert").filter({ hasText: "Not valid JSON" }).waitFor();
    expect(app.problems).toEqual([]);
  });

  it("connects and disconnects from the inspector by keyboard, offering only the outputs that fit", async () => {
    await using app = await openApp();
    const { page } = app;
    await newWorkflow(page, "Keys");
    await addNode(page, "number", "constant.number");
    await addNode(page, "text", "constant.string");
    await addNode(page, "add", "math.add");
    await select(page, "math_add");
    const from = inspector(page).getByRole("combobox", { name: "Connect a from" });
    // The number's output fits a number input; the string's does not, nor the Add's own output.
    expect(await from.locator("option").allTextContents()).toEqual(["or connect…", "constant_number.output (Number)"]);
    // Arrow keys only choose (Chrome changes a closed select's value with them); Enter connects.
    await from.focus();
    await page.keyboard.press("ArrowDown");
    expect(await edges(page).count()).toBe(0);
    await page.keyboard.press("Enter");
    await expect.poll(() => edges(page).count()).toBe(1);
    const disconnect = inspector(page).getByRole("button", { name: "Disconnect a" });
    await expect.poll(() => disconnect.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await inspector(page).textContent()).toContain("connected from constant_number.output (Number)");
    // The same output may feed a second input; the Connect button connects too.
    await inspector(page)
      .getByRole("combobox", { name: "Connect b from" })
      .selectOption({ label: "constant_number.output (Number)" });
    await inspector(page).getByRole("button", { name: "Connect b", exact: true }).click();
    await expect.poll(() => edges(page).count()).toBe(2);

    await disconnect.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => edges(page).count()).toBe(1);
    await expect.poll(() => from.evaluate((el) => el === document.activeElement)).toBe(true);
    // Each was one undo step: undo brings a's edge back.
    await focusCanvas(page);
    await page.keyboard.press("Control+z");
    await expect.poll(() => edges(page).count()).toBe(2);
    expect(app.problems).toEqual([]);
  });
  it("says what a node lacks by its title and the field's label, never by the graph's internals (data.name)", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.setViewportSize({ width: 1400, height: 900 });
    await newWorkflow(page, "Half done");
    await addNode(page, "number", "constant.number");
    await addNode(page, "output", "workflow.output");
    await connect(page, { node: "constant_number", handle: "output" }, { node: "workflow_output", handle: "value" });
    await addNode(page, "template", "text.template");
    await select(page, "text_template");
    await inspector(page)
      .getByRole("textbox", { name: /^template/ })
      .fill("Hello {{who}}");

    await page.getByRole("button", { name: "Run workflow" }).click();
    const banner = page.locator(".editor-pane .banner[role=status]");
    await banner.getByText("cannot run").waitFor();
    const text = (await banner.textContent()) ?? "";
    expect(text).toContain(`Workflow output: "name" (the output's name) is required; fill it in.`);
    expect(text).toContain('Template: slot {{who}} has no value; connect a node to input "who" or fill it in.');
    expect(text).not.toMatch(/data\.|\(workflow\.output\)|node "workflow_output"/);
    expect(app.problems).toEqual([]);
  });

  it("shows a text input's every line: its field grows with what it holds, up to a limit, then scrolls", async () => {
    await using app = await openApp();
    const { page } = app;
    await newWorkflow(page, "Code");
    await addNode(page, "run code", "code.run");
    await select(page, "code_run");
    const code = inspector(page).getByRole("textbox", { name: /^code/ });
    const fits = () => code.evaluate((el) => el.scrollHeight <= el.clientHeight + 1);
    const height = async () => (await code.boundingBox())?.height ?? 0;
    await code.fill("(input) => input");
    const oneLine = await height();
    await code.fill(
      "(input) => {\n  const words = String(input).split(' ');\n  return words.map((w) => w.toUpperCase());\n}",
    );
    await expect.poll(fits).toBe(true);
    expect(await height()).toBeGreaterThan(oneLine * 3);
    // A long program stops growing and scrolls inside its field.
    await code.fill(`(input) => {\n${"  input += 1;\n".repeat(60)}  return input;\n}`);
    await expect.poll(fits).toBe(false);
    expect(await height()).toBeLessThan(400);
    expect(app.problems).toEqual([]);
  });

  it("asks for the graph's workflow inputs beside Run workflow and runs with what the person typed", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.setViewportSize({ width: 1400, height: 900 });
    await newWorkflow(page, "Echo");
    await addNode(page, "workflow input", "workflow.input");
    await select(page, "workflow_input");
    await inspector(page).getByRole("textbox", { name: /^name/ }).fill("x");
    await addNode(page, "output", "workflow.output");
    await select(page, "workflow_output");
    await inspector(page).getByRole("textbox", { name: /^name/ }).fill("y");
    await connect(page, { node: "workflow_input", handle: "output" }, { node: "workflow_output", handle: "value" });
    const field = page.getByRole("group", { name: "Inputs" }).getByRole("textbox", { name: "Input x" });
    expect(await field.getAttribute("placeholder")).toBe("required");
    await field.fill('{"n": 41}');
    // Enter in the field runs, as a form's Enter submits it.
    await field.press("Enter");
    await page.getByRole("status", { name: "Workflow output: done" }).waitFor();
    const jobs = page.getByRole("region", { name: "Jobs" });
    await openTab(page, "Jobs");
    await jobs.getByRole("listitem", { name: "Echo: completed" }).waitFor();
    // The output is the parsed JSON object (shown as a tree), not the typed text.
    expect((await jobs.textContent())?.replace(/\s+/g, "")).toContain('"y":{1keys"n":41}');

    // What was typed stays with the workflow: after a reload, and after another workflow was open.
    await page.reload();
    await expect.poll(() => field.inputValue()).toBe('{"n": 41}');
    await newWorkflow(page, "Other");
    expect(await field.count()).toBe(0);
    await page.getByRole("combobox", { name: "Workflow" }).selectOption({ label: "Echo" });
    await expect.poll(() => field.inputValue()).toBe('{"n": 41}');
    expect(app.problems).toEqual([]);
  });
});
