/**
 * Issue 6's "done when", through the panel: an action builds a workflow in the open editor (constant ->
 * text template -> JSON parse -> get by path -> output), runs it with ui.runWorkflow, the panel shows
 * the job's progress, the action reads the outputs; then a long run is started and cancelled.
 */
import type { Page } from "playwright-core";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { accessibilityProblems } from "./a11y.ts";
import { openApp } from "./browser.ts";
import { newWorkflow, node, openTab, select } from "./editor.ts";
import { autoAction, dialog, finished, runAction } from "./panel.ts";

/** Whether node `id` is wholly inside the canvas's visible box. */
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

const BUILD_AND_RUN = `import { ui } from "@nodetool-ai/sandbox-nodetool/ui";
const g = await openWorkflow();
g.addNode("name", "constant.string", { value: "Ada" }, { x: 0, y: 0 });
g.addNode("tpl", "text.template", { template: '{"user": {"name": "{{name}}"}}' }, { x: 220, y: 0 });
g.addNode("parse", "json.parse", {}, { x: 440, y: 0 });
g.addNode("get", "json.get", { path: "user.name" }, { x: 660, y: 0 });
g.addNode("out", "workflow.output", { name: "greeting" }, { x: 880, y: 0 });
g.connect("name", "output", "tpl", "name");
g.connect("tpl", "output", "parse", "text");
g.connect("parse", "output", "get", "object");
g.connect("get", "output", "out", "value");
const built = await g.commit();
if (!built.ok) throw new Error(JSON.stringify(built.failed));
const job = await ui.runWorkflow({ _message: "run what I built" });
export default { status: job.status, greeting: job.outputs.greeting };`;

describe("running workflows from an action", () => {
  it("builds, runs the open workflow with progress in the panel, reads the outputs, and cancels a long run", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await newWorkflow(page, "Greeter");
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await runAction(page, BUILD_AND_RUN);
    const text = await finished(page);
    expect(text, text).toContain('"greeting": "Ada"');
    expect(text).toContain('"status": "completed"');
    await openTab(page, "Jobs");
    await page.getByRole("region", { name: "Jobs" }).locator(".job-completed").first().waitFor();
    await openTab(page, "Action");
    // The job ran the graph on screen, which is still an unsaved draft.
    await page.getByText("Greeter · version 1 · unsaved draft").waitFor();

    // In default mode ui.runWorkflow asks, listing what the graph uses.
    await page.getByLabel("Mode", { exact: true }).selectOption("default");
    await runAction(
      page,
      `import { ui } from "@nodetool-ai/sandbox-nodetool/ui";\nconst job = await ui.runWorkflow();\nexport default job.outputs;`,
    );
    await dialog(page).waitFor();
    expect(await dialog(page).textContent()).toContain("ui_run_workflow");
    expect(await dialog(page).textContent()).toContain("execute");
    await dialog(page).getByRole("button", { name: "Allow once" }).click();
    expect(await finished(page)).toContain('"greeting": "Ada"');

    // A long run, started and cancelled by the action.
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
import { jobs } from "@nodetool-ai/sandbox-nodetool/jobs";
const graph = { nodes: [{ id: "wait", type: "control.delay", data: { ms: 60000, value: 1 } }], edges: [] };
const { job_id } = await workflows.start({ graph });
await jobs.cancel(job_id);
const done = await jobs.wait({ job_id, wait_ms: 10000 });
export default done.status;`,
    );
    expect(await finished(page)).toContain('"cancelled"');
    await openTab(page, "Jobs");
    await page.getByRole("region", { name: "Jobs" }).locator(".job-cancelled").waitFor();
    const statuses = await server.app.store.sql("SELECT status FROM jobs ORDER BY created_at").all();
    expect(statuses).toEqual([{ status: "completed" }, { status: "completed" }, { status: "cancelled" }]);
  });

  it("shows a failed job's node from the Jobs tab: opens its workflow, brings the node into view, selects and focuses it", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const graph = {
  nodes: [
    { id: "one", type: "constant.number", data: { value: 1 }, position: { x: 0, y: 0 } },
    { id: "e", type: "math.divide", data: { a: 1, b: 0 }, position: { x: 2600, y: 1400 } },
  ],
  edges: [],
};
const broken = await workflows.create({ name: "Broken", graph });
await workflows.create({ name: "Other" });
const job = await workflows.run(broken.id);
export default job.status;`,
    );
    expect(await finished(page)).toContain('"failed"');
    const picker = page.getByRole("combobox", { name: "Workflow" });
    await picker.selectOption({ label: "Other" });
    await page.getByText("Other · version 1").waitFor();

    await openTab(page, "Jobs");
    const failed = page.getByRole("region", { name: "Jobs" }).getByRole("listitem", { name: "Broken: failed" });
    await failed.getByRole("button", { name: "Show node e" }).click();
    await page.getByText("Broken · version 1").waitFor();
    // The node is the selection (the inspector shows it), has focus, and is in view.
    await page.getByRole("region", { name: "Inspector" }).getByText("Divide").first().waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-id"))).toBe("e");
    await expect.poll(() => inView(page, "e")).toBe(true);
    // Its last run is in the inspector: failed, and why.
    const lastRun = page.getByRole("region", { name: "Inspector" }).getByRole("region", { name: "Last run" });
    await lastRun.getByText("failed", { exact: true }).waitFor();
    expect(await lastRun.locator(".error").textContent()).toMatch(/zero/i);

    // Panned away from it, the view comes back to it.
    const canvas = await page.getByRole("region", { name: "Workflow canvas" }).boundingBox();
    if (!canvas) throw new Error("no canvas");
    for (let i = 0; i < 3; i++) {
      await page.mouse.move(canvas.x + canvas.width - 10, canvas.y + 10);
      await page.mouse.down();
      await page.mouse.move(canvas.x + 10, canvas.y + 10, { steps: 5 });
      await page.mouse.up();
    }
    await expect.poll(() => inView(page, "e")).toBe(false);
    await failed.getByRole("button", { name: "Show node e" }).click();
    await expect.poll(() => inView(page, "e")).toBe(true);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-id"))).toBe("e");

    // Once the node is gone from the canvas, the button says so instead.
    await page.keyboard.press("Delete");
    await node(page, "e").waitFor({ state: "detached" });
    await failed.getByRole("button", { name: "Show node e" }).click();
    await failed.getByText('Node "e" is not in the workflow on the canvas any more.').waitFor();

    // Any job's `Open workflow` opens its workflow (its draft kept), a finished one's as well as a failed one's.
    await picker.selectOption({ label: "Other" });
    await page.getByText("Other · version 1").waitFor();
    await failed.getByRole("button", { name: "Open workflow Broken" }).click();
    await page.getByText("Broken · version 1 · unsaved draft").waitFor();
    expect(await node(page, "e").count()).toBe(0);
    expect(app.problems).toEqual([]);
  });

  it("says beside Run workflow how the canvas's run goes and how it ended: progress, outputs, the failing node, a cancel", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const at = (x) => ({ x, y: 0 });
await workflows.create({ name: "Slow", graph: { nodes: [
  { id: "one", type: "constant.number", data: { value: 1 }, position: at(0) },
  { id: "wait", type: "control.delay", data: { ms: 60000, value: 1 }, position: at(300) },
], edges: [] } });
await workflows.create({ name: "Broken", graph: { nodes: [
  { id: "e", type: "math.divide", title: "Halve", data: { a: 1, b: 0 }, position: at(0) },
], edges: [] } });
await workflows.create({ name: "Sum", graph: { nodes: [
  { id: "add", type: "math.add", data: { a: 2, b: 40 }, position: at(0) },
  { id: "out", type: "workflow.output", data: { name: "answer" }, position: at(300) },
  { id: "out2", type: "workflow.output", data: { name: "note" }, position: at(300) },
  { id: "text", type: "constant.string", data: { value: "x".repeat(300) }, position: at(0) },
], edges: [
  { id: "e1", source: "add", sourceHandle: "output", target: "out", targetHandle: "value" },
  { id: "e2", source: "text", sourceHandle: "output", target: "out2", targetHandle: "value" },
] } });
export default "made";`,
    );
    expect(await finished(page)).toContain('"made"');
    const picker = page.getByRole("combobox", { name: "Workflow" });
    const outcome = page.getByRole("status", { name: "Last run" });
    const run = page.getByRole("button", { name: "Run workflow" });

    // Running: how many of its nodes are done, until the person cancels it.
    await picker.selectOption({ label: "Slow" });
    await page.getByText("Slow · version 1").waitFor();
    expect(await outcome.textContent()).toBe("");
    await run.click();
    await outcome.getByText("Running: 1 of 2 nodes done").waitFor();
    expect(await outcome.getByRole("progressbar", { name: "Run progress" }).count()).toBe(1);
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await outcome.getByText(/^Cancelled after \d/).waitFor();

    // Failed: at which node (its title) and why; Show node selects it and gives it focus.
    await picker.selectOption({ label: "Broken" });
    await page.getByText("Broken · version 1").waitFor();
    // The last run shown is this workflow's (the other's stays with it).
    expect(await outcome.textContent()).toBe("");
    await run.click();
    await outcome.getByText("Failed at Halve").waitFor();
    expect(await outcome.textContent()).toMatch(/zero/i);
    await page.locator(".react-flow__pane").click({ position: { x: 5, y: 5 } });
    await outcome.getByRole("button", { name: "Show node" }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-id"))).toBe("e");
    await page.getByRole("region", { name: "Inspector" }).getByRole("heading", { name: "Halve" }).waitFor();

    // Completed: its time and each output, cut short (the whole value on hover). Ctrl+Enter on the
    // canvas runs it as the button does; in a field (the description) it is the field's own.
    await picker.selectOption({ label: "Sum" });
    await page.getByText("Sum · version 1").waitFor();
    const description = page.getByRole("textbox", { name: "Description" });
    await description.fill("Adds.");
    await description.press("Control+Enter");
    await page.getByText("Description saved.").waitFor();
    expect(await outcome.textContent()).toBe("");
    await page.locator(".react-flow__pane").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("Control+Enter");
    await outcome.getByText(/^Completed in \d/).waitFor();
    const line = outcome.locator(".run-outputs");
    expect(await line.textContent()).toMatch(/^answer: 42, note: "x{30,40}…$/);
    expect(await line.getAttribute("title")).toContain("x".repeat(300));
    await picker.selectOption({ label: "Slow" });
    await outcome.getByText(/^Cancelled after/).waitFor();
    expect(app.problems).toEqual([]);
  });

  it("keeps a run's confirmation with its workflow: opening another closes it, unconfirmed", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
await workflows.create({ name: "Writes", graph: { nodes: [
  { id: "text", type: "constant.string", data: { value: "note" }, position: { x: 0, y: 0 } },
  { id: "save", type: "memory.save", data: {}, position: { x: 300, y: 0 } },
], edges: [{ id: "e1", source: "text", sourceHandle: "output", target: "save", targetHandle: "content" }] } });
await workflows.create({ name: "Plain", graph: { nodes: [
  { id: "n", type: "constant.number", data: { value: 1 }, position: { x: 0, y: 0 } },
], edges: [] } });
export default "made";`,
    );
    expect(await finished(page)).toContain('"made"');
    const picker = page.getByRole("combobox", { name: "Workflow" });
    const confirm = page.getByRole("group", { name: "Confirm the run" });
    await picker.selectOption({ label: "Writes" });
    await page.getByText("Writes · version 1").waitFor();
    await page.getByRole("button", { name: "Run workflow" }).click();
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain("save_memory");

    // Another workflow opened: the question about the first is gone, and nothing was confirmed or run.
    await picker.selectOption({ label: "Plain" });
    await page.getByText("Plain · version 1").waitFor();
    expect(await confirm.count()).toBe(0);
    await picker.selectOption({ label: "Writes" });
    await page.getByText("Writes · version 1").waitFor();
    expect(await confirm.count()).toBe(0);
    await page.getByRole("button", { name: "Run workflow" }).click();
    await confirm.waitFor();
    expect(await server.app.store.sql("SELECT count(*) AS n FROM jobs").get()).toEqual({ n: 0 });
    expect(app.problems).toEqual([]);
  });

  it("lists the newest jobs and, below them, Show older jobs reads the ones before, to the first", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    // 32 runs, each giving out its number: the first is "run 1".
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
for (let i = 1; i <= 32; i++) {
  await workflows.run({ graph: { nodes: [
    { id: "n", type: "constant.string", data: { value: "run " + i }, position: { x: 0, y: 0 } },
    { id: "out", type: "workflow.output", data: { name: "said" }, position: { x: 200, y: 0 } },
  ], edges: [{ id: "e", source: "n", sourceHandle: "output", target: "out", targetHandle: "value" }] } });
}
export default "ran";`,
    );
    expect(await finished(page)).toContain('"ran"');
    // Read afresh: the jobs this page saw run are all kept until then.
    await page.reload();
    await openTab(page, "Jobs");
    const jobs = page.getByRole("region", { name: "Jobs" });
    const items = jobs.getByRole("listitem", { name: "a workflow graph: completed" });
    await expect.poll(() => items.count()).toBe(30);
    expect(await items.first().textContent()).toContain('"run 32"');
    expect(await jobs.getByText('"run 2"').count()).toBe(0);

    await jobs.getByRole("button", { name: "Show older jobs" }).click();
    await expect.poll(() => items.count()).toBe(32);
    expect(await items.last().textContent()).toContain('"run 1"');
    // Focus is on the first job the page added (the button went: nothing older).
    await expect
      .poll(() =>
        page.evaluate(() => {
          const focused = document.activeElement;
          return focused?.getAttribute("role") === "listitem" || focused?.tagName === "LI" ? focused.textContent : "";
        }),
      )
      .toContain('"run 2"');
    // The last page was not full: nothing older to read.
    expect(await jobs.getByRole("button", { name: "Show older jobs" }).count()).toBe(0);
    // A new run adds on top; the older ones stay.
    await openTab(page, "Action");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
await workflows.run({ graph: { nodes: [{ id: "n", type: "constant.string", data: { value: "run 33" }, position: { x: 0, y: 0 } }], edges: [] } });
export default "again";`,
    );
    expect(await finished(page)).toContain('"again"');
    await openTab(page, "Jobs");
    await expect.poll(() => items.count()).toBe(33);
    expect(await items.last().textContent()).toContain('"run 1"');
    expect(app.problems).toEqual([]);
  });

  it("lists only the open workflow's jobs, or only failed ones, when asked, following the workflow opened next, each with its inputs", async () => {
    await using app = await openApp();
    const { page } = app;
    // Two workflows greeting whoever they are given; each runs twice, and a graph runs once.
    await autoAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const graph = (greeting) => ({ nodes: [
  { id: "who", type: "workflow.input", data: { name: "who", default: "you" }, position: { x: 0, y: 0 } },
  { id: "say", type: "text.template", data: { template: greeting + " {{who}}" }, position: { x: 200, y: 0 } },
  { id: "out", type: "workflow.output", data: { name: "said" }, position: { x: 400, y: 0 } },
], edges: [
  { id: "a", source: "who", sourceHandle: "output", target: "say", targetHandle: "who" },
  { id: "b", source: "say", sourceHandle: "output", target: "out", targetHandle: "value" },
] });
const hello = await workflows.create({ name: "Hello", graph: graph("Hello") });
const bye = await workflows.create({ name: "Bye", graph: graph("Bye") });
for (const who of ["Ada", "Grace"]) {
  await workflows.run({ workflow_id: hello.id, inputs: { who } });
  await workflows.run({ workflow_id: bye.id, inputs: { who } });
}
await workflows.run({ graph: { nodes: [{ id: "n", type: "constant.string", data: { value: "loose" }, position: { x: 0, y: 0 } }], edges: [] } });
export default [hello.id, bye.id];`,
    );
    const rows = (await app.server.app.store.sql("SELECT id FROM workflows ORDER BY name DESC").all()) as {
      id: string;
    }[];
    const ids = rows.map((row) => row.id); // Hello, Bye
    expect(ids).toHaveLength(2);
    await page.goto(`${app.server.url}/?workflow=${ids[0]}`);
    await page.getByText("Hello · version 1").waitFor();
    await openTab(page, "Jobs");
    const jobs = page.getByRole("region", { name: "Jobs" });
    const items = jobs.getByRole("listitem");
    await expect.poll(() => items.count()).toBe(5);
    // Each run says what it was given.
    expect(await jobs.getByRole("listitem", { name: "Bye: completed" }).first().textContent()).toContain(
      'Inputs: who: "Grace"',
    );

    // Another workflow's jobs offer to open it; the open one's need not.
    expect(await jobs.getByRole("button", { name: "Open workflow Bye" }).count()).toBe(2);
    expect(await jobs.getByRole("button", { name: "Open workflow Hello" }).count()).toBe(0);
    const only = jobs.getByRole("checkbox", { name: "Only Hello" });
    await only.check();
    await expect.poll(() => items.count()).toBe(2);
    expect(await jobs.getByRole("listitem", { name: "Hello: completed" }).count()).toBe(2);
    expect(await items.first().textContent()).toContain('Inputs: who: "Grace"');
    expect(await items.first().textContent()).toContain('"Hello Grace"');
    expect(await items.last().textContent()).toContain('Inputs: who: "Ada"');

    // Opening another workflow: the list follows it.
    await page.getByRole("combobox", { name: "Workflow" }).selectOption({ label: "Bye" });
    await jobs.getByRole("checkbox", { name: "Only Bye" }).waitFor();
    await expect.poll(() => jobs.getByRole("listitem", { name: "Bye: completed" }).count()).toBe(2);
    expect(await items.count()).toBe(2);
    // A run of the open workflow from the canvas adds on top, with its input.
    await page.getByRole("textbox", { name: "Input who" }).fill("Linus");
    await page.getByRole("button", { name: "Run workflow" }).click();
    await expect.poll(() => items.count()).toBe(3);
    await expect.poll(() => items.first().textContent()).toContain('"Bye Linus"');
    expect(await items.first().textContent()).toContain('Inputs: who: "Linus"');
    // A run of another workflow does not show here.
    await openTab(page, "Action");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
await workflows.run({ workflow_id: ${JSON.stringify(ids[0])}, inputs: { who: "Alan" } });
export default "ran";`,
    );
    expect(await finished(page)).toContain('"ran"');
    await openTab(page, "Jobs");
    expect(await items.count()).toBe(3);
    expect(await jobs.getByText("Alan").count()).toBe(0);
    // The choice stays across a reload.
    await page.reload();
    await openTab(page, "Jobs");
    expect(await jobs.getByRole("checkbox", { name: "Only Bye" }).isChecked()).toBe(true);
    await expect.poll(() => items.count()).toBe(3);
    // Unchecked: every job again, the new one among them.
    await jobs.getByRole("checkbox", { name: "Only Bye" }).uncheck();
    await expect.poll(() => items.count()).toBe(7);
    expect(await jobs.getByText('Inputs: who: "Alan"').count()).toBe(1);
    // Only failed: none yet; a run that fails shows as it fails.
    await jobs.getByRole("checkbox", { name: "Only failed" }).check();
    await jobs.getByText("No job matches these filters.").waitFor();
    await openTab(page, "Action");
    expect(
      await autoAction(
        page,
        `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const job = await workflows.run({ graph: { nodes: [{ id: "bad", type: "json.parse", data: { text: "{" }, position: { x: 0, y: 0 } }], edges: [] } });
export default job.status;`,
      ),
    ).toContain('"failed"');
    await openTab(page, "Jobs");
    await expect.poll(() => items.count()).toBe(1);
    expect(await jobs.getByRole("listitem", { name: "a workflow graph: failed" }).count()).toBe(1);
    expect(app.problems).toEqual([]);
  });

  it("puts a past run's inputs back in its workflow's run inputs, opening it, and runs with them", async () => {
    await using app = await openApp();
    const { page } = app;
    // Echo gives back what it is given; Other is open at the end.
    const made = await autoAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const echo = await workflows.create({ name: "Echo", graph: { nodes: [
  { id: "text", type: "workflow.input", data: { name: "text", default: "" }, position: { x: 0, y: 0 } },
  { id: "n", type: "workflow.input", data: { name: "n", default: 0 }, position: { x: 0, y: 150 } },
  { id: "out", type: "workflow.output", data: { name: "text" }, position: { x: 300, y: 0 } },
  { id: "outn", type: "workflow.output", data: { name: "n" }, position: { x: 300, y: 150 } },
], edges: [
  { id: "a", source: "text", sourceHandle: "output", target: "out", targetHandle: "value" },
  { id: "b", source: "n", sourceHandle: "output", target: "outn", targetHandle: "value" },
] } });
await workflows.run({ workflow_id: echo.id, inputs: { text: "42", n: 7 } });
const other = await workflows.create({ name: "Other", graph: { nodes: [], edges: [] } });
export default other.id;`,
    );
    await page.goto(`${app.server.url}/?workflow=${made.match(/wf_[\w-]+/)?.[0]}`);
    await page.getByText("Other · version 1").waitFor();
    await openTab(page, "Jobs");
    const jobs = page.getByRole("region", { name: "Jobs" });
    const run = jobs.getByRole("listitem", { name: "Echo: completed" });
    await expect.poll(() => run.textContent()).toContain('Inputs: text: "42", n: 7');
    await run.getByRole("button", { name: "Use these inputs in Echo" }).click();

    // Echo opens with the run's inputs, the text quoted so that it stays text; focus on the first.
    await page.getByText("Echo · version 1").waitFor();
    const text = page.getByRole("textbox", { name: "Input text" });
    await expect.poll(() => text.inputValue()).toBe('"42"');
    expect(await page.getByRole("textbox", { name: "Input n" }).inputValue()).toBe("7");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Input text");
    await page.keyboard.press("Enter");
    const items = jobs.getByRole("listitem", { name: "Echo: completed" });
    await expect.poll(() => items.count()).toBe(2);
    const stored = (await app.server.app.store
      .sql("SELECT outputs FROM jobs ORDER BY created_at DESC, rowid DESC")
      .get()) as {
      outputs: string;
    };
    expect(JSON.parse(stored.outputs)).toEqual({ text: "42", n: 7 });
    // The fields stay with Echo across a reload, as typed ones do.
    await page.reload();
    await expect.poll(() => page.getByRole("textbox", { name: "Input text" }).inputValue()).toBe('"42"');
    expect(app.problems).toEqual([]);
  });

  it("runs a workflow whose input takes an image with one of the person's assets, picked or uploaded beside Run workflow", async () => {
    await using app = await openApp();
    const { page, server } = app;
    const made = await autoAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const wf = await workflows.create({ name: "Shrink", graph: { nodes: [
  { id: "in", type: "workflow.input", data: { name: "photo" }, position: { x: 0, y: 0 } },
  { id: "resize", type: "image.resize", data: { width: 16 }, position: { x: 250, y: 0 } },
  { id: "out", type: "workflow.output", data: { name: "small" }, position: { x: 500, y: 0 } },
], edges: [
  { id: "e1", source: "in", sourceHandle: "output", target: "resize", targetHandle: "image" },
  { id: "e2", source: "resize", sourceHandle: "output", target: "out", targetHandle: "value" },
] } });
export default wf.id;`,
    );
    await page.goto(`${server.url}/?workflow=${made.match(/wf_[\w-]+/)?.[0]}`);
    await page.getByText("Shrink · version 1").waitFor();
    // Not a text field: a picker of the person's images, and an upload.
    const picker = page.getByRole("combobox", { name: "Input photo" });
    await picker.waitFor();
    expect(await page.getByRole("textbox", { name: "Input photo" }).count()).toBe(0);
    const red = await sharp({ create: { width: 32, height: 24, channels: 3, background: "red" } })
      .png()
      .toBuffer();
    await page
      .getByLabel("Upload image for photo")
      .setInputFiles({ name: "red.png", mimeType: "image/png", buffer: red });
    await expect.poll(async () => (await picker.locator("option:checked").textContent()) ?? "").toContain("red.png");
    await page.getByRole("button", { name: "Run workflow" }).click();
    // Resizing saves an asset: the first run asks.
    await page.getByRole("button", { name: "Yes, run it" }).click();
    // The outcome names the new asset by its file name, not its id.
    await page.getByText("small: red-resized.png").waitFor();
    const stored = (await server.app.store.sql("SELECT inputs, status FROM jobs").get()) as {
      inputs: string;
      status: string;
    };
    expect(stored.status).toBe("completed");
    const [asset] = (await server.app.store.sql("SELECT id FROM assets WHERE name = 'red.png'").all()) as {
      id: string;
    }[];
    expect(JSON.parse(stored.inputs)).toEqual({ photo: asset?.id });

    // Emptied, the run has no image to take: the job fails at the input, saying so.
    await picker.selectOption("");
    await page.getByRole("button", { name: "Run workflow" }).click();
    await page.getByText(/Failed at Workflow input/).waitFor();
    // The input's default in the Inspector picks an asset too; with it set, an empty field runs with it.
    await select(page, "in");
    const inspector = page.getByRole("region", { name: "Inspector" });
    const fallback = inspector.getByRole("combobox");
    await expect.poll(async () => (await fallback.locator("option").allTextContents()).join()).toContain("red.png");
    await fallback.selectOption({ label: "red.png (image/png)" });
    await page.getByRole("button", { name: "Run workflow" }).click();
    await expect
      .poll(() => server.app.store.sql("SELECT count(*) AS n FROM jobs WHERE status = 'completed'").get())
      .toEqual({ n: 2 });
    // Use these inputs brings the image back to the picker.
    await openTab(page, "Jobs");
    const done = page.getByRole("region", { name: "Jobs" }).getByRole("listitem", { name: "Shrink: completed" });
    // The jobs say which image they were given and link what they made, each by its name.
    const jobs = page.getByRole("region", { name: "Jobs" });
    await jobs.getByText("Inputs: photo: red.png").waitFor();
    const resized = jobs.getByRole("link", { name: "red-resized.png" }).first();
    expect(await resized.getAttribute("href")).toMatch(/^\/assets\/ast_[0-9a-f]{32}$/);
    await done.getByRole("button", { name: "Use these inputs in Shrink" }).click();
    await expect.poll(async () => (await picker.locator("option:checked").textContent()) ?? "").toContain("red.png");
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")))
      .toBe("Input photo");
    expect(app.problems).toEqual([]);
  });

  it("copies a node's output from its Last run, and a job's outputs from the Jobs tab", async () => {
    await using app = await openApp();
    const { page, context, server } = app;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const made = await autoAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const wf = await workflows.create({ name: "Pair", graph: { nodes: [
  { id: "pair", type: "constant.json", data: { value: { a: 1, b: "two" } }, position: { x: 0, y: 0 } },
  { id: "out", type: "workflow.output", data: { name: "pair" }, position: { x: 250, y: 0 } },
], edges: [{ id: "e", source: "pair", sourceHandle: "output", target: "out", targetHandle: "value" }] } });
export default wf.id;`,
    );
    await page.goto(`${server.url}/?workflow=${made.match(/wf_[\w-]+/)?.[0]}`);
    await page.getByText("Pair · version 1").waitFor();
    await page.getByRole("button", { name: "Run workflow" }).click();
    await page.getByText(/^Completed in /).waitFor();
    await select(page, "pair");
    const lastRun = page.getByRole("region", { name: "Last run" });
    await lastRun.getByRole("button", { name: "Copy the output" }).click();
    await lastRun.getByRole("status").filter({ hasText: "Copied." }).waitFor();
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
    expect(JSON.parse(await clipboard())).toEqual({ output: { a: 1, b: "two" } });
    await openTab(page, "Jobs");
    await page.getByRole("button", { name: "Copy the outputs of Pair" }).click();
    await expect.poll(clipboard).toBe(JSON.stringify({ pair: { a: 1, b: "two" } }, null, 2));
    expect(app.problems).toEqual([]);
  });

  it("lists a job's nodes on Nodes: each one's status, time and error", async () => {
    await using app = await openApp();
    const { page } = app;
    await autoAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const wf = await workflows.create({ name: "Parse", graph: { nodes: [
  { id: "text", type: "constant.string", data: { value: "{" }, position: { x: 0, y: 0 } },
  { id: "parse", type: "json.parse", data: {}, position: { x: 250, y: 0 } },
  { id: "out", type: "workflow.output", data: { name: "parsed" }, position: { x: 500, y: 0 } },
], edges: [
  { id: "a", source: "text", sourceHandle: "output", target: "parse", targetHandle: "text" },
  { id: "b", source: "parse", sourceHandle: "output", target: "out", targetHandle: "value" },
] } });
export default (await workflows.run({ workflow_id: wf.id })).status;`,
    );
    await openTab(page, "Jobs");
    const job = page.getByRole("region", { name: "Jobs" }).getByRole("listitem", { name: "Parse: failed" });
    const nodes = job.getByRole("button", { name: "Nodes" });
    expect(await nodes.getAttribute("aria-expanded")).toBe("false");
    await nodes.click();
    const rows = job.getByRole("table").getByRole("row");
    await expect.poll(() => rows.count()).toBe(4);
    const cells = async (i: number) => (await rows.nth(i).getByRole("cell").allTextContents()).map((t) => t.trim());
    expect((await cells(1)).slice(0, 2)).toEqual(["Text text", "done"]);
    expect((await cells(1))[2]).toMatch(/^\d+(\.\d+)? (ms|s)$/);
    const parse = await cells(2);
    expect(parse[0]).toContain("Parse JSON parse");
    expect(parse[0]).toContain("not valid JSON");
    expect(parse[1]).toBe("failed");
    expect((await cells(3))[1]).toMatch(/^(not run|skipped)$/);
    expect(await nodes.getAttribute("aria-expanded")).toBe("true");
    expect(await accessibilityProblems(page)).toEqual([]);
    await nodes.click();
    expect(await job.getByRole("table").count()).toBe(0);
    expect(app.problems).toEqual([]);
  });
});
