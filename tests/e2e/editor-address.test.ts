/**
 * The open workflow is in the page's address and title, as a document app has it: a reload or a link
 * opens it (each tab its own), Back and Forward move between the workflows opened. With none open, the
 * editor lists the person's workflows to open, or says how to make one.
 */
import { describe, expect, it } from "vitest";
import { WorkflowStore } from "../../server-bridge/store/workflows.ts";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { agent } from "./agent-page.ts";
import { openApp } from "./browser.ts";
import { addNode, newWorkflow, openTab, workflowAction } from "./editor.ts";

const linked = (url: string) => new URL(url).searchParams.get("workflow");

describe("the open workflow in the address", () => {
  it("opens what the address names; each tab keeps its own; Back and Forward go between workflows", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await newWorkflow(page, "First");
    await newWorkflow(page, "Second");
    const ids = Object.fromEntries(
      ((await server.app.store.sql("SELECT id, name FROM workflows").all()) as { id: string; name: string }[]).map(
        (row) => [row.name, row.id],
      ),
    );
    await expect.poll(() => linked(page.url())).toBe(ids.Second);
    expect(await page.title()).toBe("Second · nodetool sandbox");

    await page.goBack();
    await page.getByText("First · version 1").waitFor();
    expect(linked(page.url())).toBe(ids.First);
    await expect.poll(() => page.title()).toBe("First · nodetool sandbox");
    await page.goForward();
    await page.getByText("Second · version 1").waitFor();

    // A link opens the workflow it names, in another tab, whatever this one has open...
    const other = await app.newPage();
    await other.goto(`${server.url}/?workflow=${ids.First}`);
    await other.getByText("First · version 1").waitFor();
    // ...and this tab, reloaded, opens its own (not the one the other tab opened last).
    await page.reload();
    await page.getByText("Second · version 1").waitFor();
    expect(linked(page.url())).toBe(ids.Second);
    expect(app.problems).toEqual([]);
  });

  it("a link followed while signed out opens its workflow once signed in, by the form or the printed address", async () => {
    await using app = await openApp();
    const { page, server, context } = app;
    await newWorkflow(page, "Shared");
    const id = ((await server.app.store.sql("SELECT id FROM workflows").get()) as { id: string }).id;
    await newWorkflow(page, "Other"); // the one this browser had open last
    await context.clearCookies();

    await page.goto(`${server.url}/?workflow=${id}`);
    await page.getByLabel("Token", { exact: true }).fill(server.token);
    await page.keyboard.press("Enter");
    await page.getByText("Shared · version 1").waitFor();
    expect(linked(page.url())).toBe(id);
    expect(page.url()).not.toContain("token");
    await context.clearCookies();

    // A wrong token first: refused, the link kept; then the printed address with the link's workflow.
    await page.goto(`${server.url}/?token=wrong&workflow=${id}`);
    await page.getByRole("alert").filter({ hasText: "token is not valid" }).waitFor();
    expect(linked(page.url())).toBe(id);
    await page.goto(`${server.url}/?token=${server.token}&workflow=${id}`);
    await page.getByText("Shared · version 1").waitFor();
    expect(new URL(page.url()).search).toBe(`?workflow=${id}`);
    expect(app.problems).toEqual([]);
  });

  it("lists the person's workflows when none is open: a link to a missing one says so; a click opens one", async () => {
    await using fake = await startFakeOpenAI({ script: [] });
    await using app = await openApp({ agent: agent(fake) });
    const { page, server } = app;
    const start = page.getByRole("navigation", { name: "Your workflows" });
    await page.getByText("You have no workflows yet.").waitFor();
    expect(await start.count()).toBe(0);
    await newWorkflow(page, "Alpha");
    await newWorkflow(page, "Beta");

    // Whether the page ever says there are none while it is still finding out (recorded from its start).
    await page.addInitScript(() => {
      new MutationObserver(() => {
        if (document.body?.textContent?.includes("You have no workflows yet.")) {
          Object.assign(window, { saidNone: true });
        }
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.goto(`${server.url}/?workflow=wf_missing`);
    await page
      .getByRole("status")
      .getByText(`The workflow this page's address names could not be opened: No workflow with id "wf_missing".`)
      .waitFor();
    await start.waitFor();
    expect(await page.evaluate(() => "saidNone" in window)).toBe(false);
    // So few that they all fit: nothing to find them with.
    expect(await page.getByRole("searchbox", { name: "Find a workflow" }).count()).toBe(0);
    // The last edited first, each with its version and when it was edited.
    expect(await start.getByRole("listitem").allInnerTexts()).toEqual([
      expect.stringMatching(/^Beta\s+version 1 · edited just now$/),
      expect.stringMatching(/^Alpha\s+version 1 · edited just now$/),
    ]);
    await start.getByRole("button", { name: "Alpha" }).focus();
    await page.keyboard.press("Enter");
    await page.getByText("Alpha · version 1").waitFor();
    expect(linked(page.url())).toBe(
      ((await server.app.store.sql("SELECT id FROM workflows WHERE name = 'Alpha'").get()) as { id: string }).id,
    );

    // Back to the address with no workflow: the list again, and the agent can be asked to build one.
    await page.goto(`${server.url}/?workflow=wf_missing`);
    await page.getByRole("button", { name: "Ask the agent to build one" }).click();
    expect(await page.getByRole("tab", { name: "Agent" }).getAttribute("aria-selected")).toBe("true");
    await expect.poll(() => page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("Build a workflow that ");
    expect(fake.requests).toHaveLength(0);
    expect(app.problems).toEqual([]);
  });

  it("finds a workflow among more than the list shows, by words of its name or description; Enter opens it", async () => {
    await using app = await openApp();
    const { page, server } = app;
    const user = (await server.app.credentials.identify(server.token))?.user ?? "";
    const workflows = new WorkflowStore(server.app.store);
    const invoices = await workflows.create(user, {
      name: "Invoices",
      description: "Monthly billing run",
      graph: { nodes: [], edges: [] },
    });
    for (let i = 0; i < 13; i++) {
      await workflows.create(user, { name: `Report ${i}`, description: "", graph: { nodes: [], edges: [] } });
    }
    await page.reload();
    const list = page.getByRole("navigation", { name: "Your workflows" });
    const find = list.getByRole("searchbox", { name: "Find a workflow" });
    await find.waitFor();
    expect(await list.getByRole("listitem").count()).toBe(12);
    await list.getByText("2 more: find one by its name, or pick it in the Workflow picker above.").waitFor();

    await find.fill("BILLING monthly");
    await expect
      .poll(() => list.getByRole("listitem").allInnerTexts())
      .toEqual([expect.stringMatching(/^Invoices\s+Monthly billing run\s+version 1/)]);
    await find.fill("nothing like it");
    await list.getByRole("status").getByText("No workflow's name or description has “nothing like it”.").waitFor();
    // Down goes from the box to the first found.
    await find.fill("report");
    await find.press("ArrowDown");
    const firstFound = await list.getByRole("listitem").first().getByRole("button").textContent();
    expect(firstFound).toMatch(/^Report \d+$/);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(firstFound);
    await find.fill("invoices");
    await find.press("Enter");
    await page.getByText("Invoices · version 1").waitFor();
    expect(linked(page.url())).toBe(invoices.id);
    expect(app.problems).toEqual([]);
  });

  it("starts a workflow from an example, and More > Close (or the picker's none) goes back to the list", async () => {
    await using app = await openApp();
    const { page, server } = app;
    const examples = page.getByRole("region", { name: "Start from an example" });
    await examples.getByRole("button", { name: "Greeting" }).waitFor();
    expect(await examples.getByRole("button").allTextContents()).toEqual([
      "Greeting",
      "Word count",
      "Circle area",
      "Table totals",
    ]);
    await examples.getByRole("button", { name: "Greeting" }).click();
    await page.getByText("Greeting · version 1").waitFor();
    await page.getByRole("button", { name: "Run workflow" }).click();
    await page.locator('.react-flow__node[data-id="greeting"]').getByText("done").waitFor();
    await openTab(page, "Jobs");
    await page.getByRole("region", { name: "Jobs" }).getByText('"Hello, world!"').waitFor();
    const stored = (await server.app.store.sql("SELECT name, description FROM workflows").all()) as {
      name: string;
      description: string;
    }[];
    expect(stored).toEqual([
      { name: "Greeting", description: "Greets a name given when it runs: a run input fills a text template." },
    ]);

    // Closed, the list shows it; the address names no workflow, and a reload stays on the list.
    await workflowAction(page, "Close");
    const list = page.getByRole("navigation", { name: "Your workflows" });
    await list.getByRole("button", { name: "Greeting" }).waitFor();
    expect(linked(page.url())).toBeNull();
    await page.reload();
    await list.getByRole("button", { name: "Greeting" }).waitFor();
    expect(await page.getByText("Greeting · version 1").count()).toBe(0);
    await list.getByRole("button", { name: "Greeting" }).click();
    await page.getByText("Greeting · version 1").waitFor();
    // Left with unsaved changes, the list says so (the draft is kept for when it opens again).
    await addNode(page, "number", "constant.number");
    await page.getByText("Greeting · version 1 · unsaved draft").waitFor();
    await page.getByRole("combobox", { name: "Workflow", exact: true }).selectOption({ label: "(none open)" });
    await list.waitFor();
    expect(linked(page.url())).toBeNull();
    const row = list.getByRole("listitem").filter({ hasText: "Greeting" });
    await row.getByText("unsaved draft").waitFor();
    await row.getByRole("button", { name: "Greeting" }).click();
    await page.getByText("Greeting · version 1 · unsaved draft").waitFor();
    // Saved, the mark goes.
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Greeting · version 2", { exact: true }).waitFor();
    await workflowAction(page, "Close");
    await list.getByRole("button", { name: "Greeting" }).waitFor();
    expect(await row.getByText("unsaved draft").count()).toBe(0);
    expect(app.problems).toEqual([]);
  });
});
