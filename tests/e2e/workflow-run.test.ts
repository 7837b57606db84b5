/**
 * Issue 6's "done when", through the panel: an action builds a workflow in the open editor (constant ->
 * text template -> JSON parse -> get by path -> output), runs it with ui.runWorkflow, the panel shows
 * the job's progress, the action reads the outputs; then a long run is started and cancelled.
 */
import { describe, expect, it } from "vitest";
import { openApp } from "./browser.ts";
import { newWorkflow, openTab } from "./editor.ts";
import { dialog, finished, runAction } from "./panel.ts";

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
});
