/**
 * Workflows as files, as a person moves them between servers: `Import` opens a file (a bare graph, or
 * one `Export` wrote; chosen, or dropped on the editor) as a new workflow; `Export` downloads the graph
 * on screen, unsaved changes too, and `Duplicate` makes it a new workflow here; a file that is not a
 * workflow is refused with what is wrong, and nothing is stored.
 */
import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { accessibilityProblems } from "./a11y.ts";
import { openApp, uploadStarted } from "./browser.ts";
import { addNode, newWorkflow, node, select, workflowAction } from "./editor.ts";

const GRAPH = {
  nodes: [
    { id: "first", type: "math.add", data: { a: 1, b: 2 }, position: { x: 0, y: 0 } },
    { id: "second", type: "math.add", data: { b: 10 }, position: { x: 260, y: 0 } },
  ],
  edges: [{ id: "e1", source: "first", sourceHandle: "output", target: "second", targetHandle: "a" }],
};

/** Chooses `Import` and the file in the browser's file chooser. */
interface DroppedFile {
  name: string;
  type: string;
  text: string;
}

/** Drops files on the element `target` names, at `where` of its box; answers that point. */
async function dropFiles(page: Page, target: string, files: DroppedFile[], where = { x: 0.5, y: 0.5 }) {
  const box = await page.locator(target).boundingBox();
  if (!box) throw new Error(`nothing at ${target}`);
  const at = {
    clientX: Math.round(box.x + box.width * where.x),
    clientY: Math.round(box.y + box.height * where.y),
  };
  const transfer = await page.evaluateHandle((list) => {
    const data = new DataTransfer();
    for (const f of list) data.items.add(new File([f.text], f.name, { type: f.type }));
    return data;
  }, files);
  await page.locator(target).dispatchEvent("dragover", { dataTransfer: transfer, ...at });
  await page.locator(target).dispatchEvent("drop", { dataTransfer: transfer, ...at });
  return at;
}

async function importFile(page: Page, name: string, text: string) {
  const [chooser] = await Promise.all([
    page.waitForEvent("filechooser"),
    page.getByRole("button", { name: "Import" }).click(),
  ]);
  await chooser.setFiles({ name, mimeType: "application/json", buffer: Buffer.from(text) });
}

describe("workflow files", () => {
  it("imports a graph as a new workflow, exports the graph on screen, and imports that again", async () => {
    await using app = await openApp();
    const { page, server } = app;
    const workflows = () => server.app.store.sql("SELECT name, graph FROM workflows ORDER BY created_at").all();

    // A bare graph is named after its file, opened, and shown.
    await importFile(page, "Adder chain.json", JSON.stringify(GRAPH));
    await page.getByText("Adder chain · version 1").waitFor();
    await node(page, "first").waitFor();
    await node(page, "second").waitFor();
    expect(await page.locator(".react-flow__edge[data-id]").count()).toBe(1);

    // An unsaved change goes into the file too.
    await addNode(page, "multiply", "math.multiply");
    await page.getByText(/unsaved draft/).waitFor();
    const [download] = await Promise.all([page.waitForEvent("download"), workflowAction(page, "Export")]);
    expect(download.suggestedFilename()).toBe("Adder chain.json");
    const text = await readFile(await download.path(), "utf8");
    const file = JSON.parse(text) as { name: string; graph: typeof GRAPH };
    expect(file.name).toBe("Adder chain");
    expect(file.graph.nodes.map((n) => n.type)).toEqual(["math.add", "math.add", "math.multiply"]);
    expect(file.graph.edges).toEqual(GRAPH.edges);
    expect(file.graph.nodes[0]?.data).toEqual({ a: 1, b: 2 });

    // The exported file comes back as a second workflow of the same name and graph.
    await importFile(page, "anything.json", text);
    await expect.poll(async () => (await workflows()).length).toBe(2);
    await page.getByText(/^Adder chain · version 1$/).waitFor();
    const [, second] = (await workflows()) as { name: string; graph: string }[];
    expect(second?.name).toBe("Adder chain");
    expect(JSON.parse(second?.graph ?? "{}")).toEqual(file.graph);
    expect(await page.locator(".react-flow__node[data-id]").count()).toBe(3);

    // A file dropped on the canvas is imported the same way.
    const dropped = await page.evaluateHandle((text) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], "Dropped.json", { type: "application/json" }));
      return transfer;
    }, JSON.stringify(GRAPH));
    const canvas = page.getByRole("region", { name: "Workflow canvas" });
    await canvas.dispatchEvent("dragover", { dataTransfer: dropped });
    await canvas.dispatchEvent("drop", { dataTransfer: dropped });
    await page.getByText("Dropped · version 1").waitFor();
    expect(await page.locator(".react-flow__node[data-id]").count()).toBe(2);
    await expect.poll(async () => (await workflows()).length).toBe(3);

    // Dropped on an asset field's upload input, a file is that input's, not an import.
    await importFile(
      page,
      "Pictures.json",
      JSON.stringify({ nodes: [{ id: "gray", type: "image.grayscale" }], edges: [] }),
    );
    await page.getByText("Pictures · version 1").waitFor();
    await select(page, "gray");
    const upload = page.getByRole("region", { name: "Inspector" }).locator('input[type="file"]');
    await upload.dispatchEvent("dragover", { dataTransfer: dropped });
    await upload.dispatchEvent("drop", { dataTransfer: dropped });
    // (An import it started would be stored before the next one, which follows it on the same run.)
    await importFile(page, "Last.json", JSON.stringify(GRAPH));
    await page.getByText("Last · version 1").waitFor();
    expect((await workflows()).map((w) => (w as { name: string }).name)).toEqual([
      "Adder chain",
      "Adder chain",
      "Dropped",
      "Pictures",
      "Last",
    ]);
    expect(app.problems).toEqual([]);
  });

  it("duplicates the workflow on screen, unsaved changes too, as `(copy)`, and the original keeps its draft", async () => {
    await using app = await openApp();
    const { page, server } = app;
    const stored = async () =>
      (await server.app.store.sql("SELECT name, graph, version FROM workflows ORDER BY created_at").all()) as {
        name: string;
        graph: string;
        version: number;
      }[];
    await importFile(page, "Adder chain.json", JSON.stringify(GRAPH));
    await page.getByText("Adder chain · version 1").waitFor();
    await addNode(page, "multiply", "math.multiply");
    await page.getByText(/unsaved draft/).waitFor();

    await workflowAction(page, "Duplicate");
    await page.getByText(/^Adder chain \(copy\) · version 1$/).waitFor();
    expect(await page.locator(".react-flow__node[data-id]").count()).toBe(3);
    const [original, copy] = await stored();
    expect(copy?.name).toBe("Adder chain (copy)");
    expect(JSON.parse(copy?.graph ?? "{}").nodes.map((n: { type: string }) => n.type)).toEqual([
      "math.add",
      "math.add",
      "math.multiply",
    ]);
    expect(JSON.parse(copy?.graph ?? "{}").edges).toEqual(GRAPH.edges);
    // The original is as it was stored, and its draft is still there when it is opened again.
    expect(JSON.parse(original?.graph ?? "{}").nodes).toHaveLength(2);
    await page.getByRole("combobox", { name: "Workflow", exact: true }).selectOption({ label: "Adder chain" });
    await page.getByText("Adder chain · version 1 · unsaved draft").waitFor();
    expect(await page.locator(".react-flow__node[data-id]").count()).toBe(3);

    // A second copy is `(copy 2)`.
    await workflowAction(page, "Duplicate");
    await page.getByText(/^Adder chain \(copy 2\) · version 1$/).waitFor();
    expect((await stored()).map((w) => w.name)).toEqual(["Adder chain", "Adder chain (copy)", "Adder chain (copy 2)"]);
    expect(app.problems).toEqual([]);
  });

  it("refuses a file that is not a workflow, saying what is wrong, and stores nothing", async () => {
    await using app = await openApp();
    const { page, server } = app;
    const cases: [string, string, RegExp][] = [
      ["notes.json", "{ this is not json", /notes\.json cannot be imported: it is not JSON/],
      ["list.json", "[1, 2, 3]", /it holds no workflow/],
      [
        "alien.json",
        JSON.stringify({ nodes: [{ id: "x", type: "alien.probe" }], edges: [] }),
        /node "x" has type "alien\.probe", which is not a node type here/,
      ],
      [
        "loop.json",
        JSON.stringify({
          ...GRAPH,
          edges: [
            ...GRAPH.edges,
            { id: "e2", source: "second", sourceHandle: "output", target: "first", targetHandle: "a" },
          ],
        }),
        /the graph has a cycle/,
      ],
      ["shape.json", JSON.stringify({ graph: { nodes: [{ id: 7 }] } }), /graph\.nodes\.0\.id/],
    ];
    for (const [name, text, message] of cases) {
      await importFile(page, name, text);
      await page.getByRole("status").filter({ hasText: message }).waitFor();
    }
    expect(await server.app.store.sql("SELECT name FROM workflows").all()).toEqual([]);
    expect(app.problems).toEqual([]);
  });

  it("saves other files dropped on the canvas (a JSON of data too) as assets, each a Load asset node where it fell, one undo step", async () => {
    await using app = await openApp();
    const { page, server } = app;
    const drop = (target: string, files: DroppedFile[], where?: { x: number; y: number }) =>
      dropFiles(page, target, files, where);
    // With no workflow open there is nothing to add them to: it says so, and nothing is saved.
    await page.getByRole("button", { name: "New workflow" }).waitFor();
    await drop(".editor-pane", [{ name: "early.csv", type: "text/csv", text: "a,b\n1,2\n" }]);
    await page.getByText("Open or create a workflow to add files to it.").waitFor();

    await newWorkflow(page, "Files");
    await drop(".react-flow__pane", [
      { name: "table.csv", type: "text/csv", text: "a,b\n1,2\n" },
      { name: "notes.txt", type: "text/plain", text: "remember" },
    ]);
    const nodes = page.locator(".react-flow__node[data-id]");
    await expect.poll(() => nodes.count()).toBe(2);
    const stored = (await server.app.store.sql("SELECT id, name FROM assets ORDER BY name").all()) as {
      id: string;
      name: string;
    }[];
    expect(stored.map((a) => a.name)).toEqual(["notes.txt", "table.csv"]);
    // Each is a Load asset node titled by its file, holding its asset, the next below; both selected.
    const first = page.locator('.react-flow__node[data-id="asset_load"]');
    const second = page.locator('.react-flow__node[data-id="asset_load_2"]');
    await first.getByText("table.csv").waitFor();
    await second.getByText("notes.txt").waitFor();
    const [one, two] = [await first.boundingBox(), await second.boundingBox()];
    expect(two?.x).toBeCloseTo(one?.x ?? 0, 0);
    expect((two?.y ?? 0) - (one?.y ?? 0)).toBeCloseTo(90, 0);
    await expect.poll(() => page.locator(".react-flow__node.selected").count()).toBe(2);
    // One dropped beside them lands where it fell.
    const at = await drop(".react-flow__pane", [{ name: "more.txt", type: "text/plain", text: "more" }], {
      x: 0.15,
      y: 0.2,
    });
    const third = page.locator('.react-flow__node[data-id="asset_load_3"]');
    await third.getByText("more.txt").waitFor();
    const box = await third.boundingBox();
    expect(Math.abs((box?.x ?? 0) - at.clientX)).toBeLessThan(4);
    expect(Math.abs((box?.y ?? 0) - at.clientY)).toBeLessThan(4);

    // A large file on a slow link: a bar shows it going up, then its node comes.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    const slow = { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 512 * 1024 };
    await cdp.send("Network.emulateNetworkConditions", slow);
    await drop(".react-flow__pane", [{ name: "big.txt", type: "text/plain", text: "x".repeat(1024 * 1024) }], {
      x: 0.7,
      y: 0.7,
    });
    await uploadStarted(page, "big.txt");
    await page.locator('.react-flow__node[data-id="asset_load_4"]').getByText("big.txt").waitFor();
    expect(await page.getByRole("progressbar").count()).toBe(0);
    // One stopped on the way up (a slower link still): nothing of it is kept and no node comes.
    await cdp.send("Network.emulateNetworkConditions", { ...slow, uploadThroughput: 128 * 1024 });
    await drop(".react-flow__pane", [{ name: "stopped.txt", type: "text/plain", text: "x".repeat(1024 * 1024) }], {
      x: 0.5,
      y: 0.5,
    });
    await uploadStarted(page, "stopped.txt");
    await page.getByRole("button", { name: "Stop uploading" }).click();
    await page.getByRole("status").getByText("Stopped: 0 of 1 file uploaded and added.").waitFor();
    expect(await page.getByRole("progressbar").count()).toBe(0);
    expect(await page.locator('.react-flow__node[data-id="asset_load_5"]').count()).toBe(0);
    await cdp.send("Network.emulateNetworkConditions", { ...slow, uploadThroughput: -1 });
    await page.getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => page.locator('.react-flow__node[data-id="asset_load_4"]').count()).toBe(0);

    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Files · version 2").waitFor();
    const saved = (await server.app.store.sql("SELECT graph FROM workflows WHERE name = 'Files'").get()) as {
      graph: string;
    };
    const table = stored.find((a) => a.name === "table.csv");
    expect(JSON.parse(saved.graph).nodes[0]).toMatchObject({
      id: "asset_load",
      type: "asset.load",
      title: "table.csv",
      data: { asset: table?.id },
    });
    // Each drop is one undo step; the assets stay the person's.
    await page.getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => nodes.count()).toBe(2);
    await page.getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => nodes.count()).toBe(0);
    expect(await server.app.store.sql("SELECT count(*) AS n FROM assets").get()).toEqual({ n: 4 });

    // A JSON file of data (no graph, no nodes in it) is a file like the others, not a workflow to import.
    for (const [name, text] of [
      ["prices.json", '[{"item":"tea","price":3}]'],
      ["rates.json", '{"eur":1.1}'],
    ]) {
      await drop(".react-flow__pane", [{ name: name as string, type: "application/json", text: text as string }]);
      await page
        .locator(".react-flow__node[data-id]")
        .getByText(name as string)
        .waitFor();
    }
    expect(await server.app.store.sql("SELECT count(*) AS n FROM assets").get()).toEqual({ n: 6 });
    expect(await server.app.store.sql("SELECT name FROM workflows").all()).toEqual([{ name: "Files" }]);
    expect(app.problems).toEqual([]);
  });

  it("keeps a file dragged where nothing takes it from the browser (which would open it in place of the app)", async () => {
    await using app = await openApp();
    const { page } = app;
    await newWorkflow(page, "Drops");
    await addNode(page, "grayscale", "image.grayscale");
    await select(page, "image_grayscale");
    /** Whether a file's `type` event at the element `selector` finds was kept from the browser's default. */
    const kept = (type: "dragover" | "drop", selector: string) =>
      page.evaluate(
        ([kind, at]) => {
          const transfer = new DataTransfer();
          transfer.items.add(new File(["{}"], "w.json", { type: "application/json" }));
          const event = new DragEvent(kind as string, { dataTransfer: transfer, bubbles: true, cancelable: true });
          const target = document.querySelector(at as string);
          if (!target) return `nothing at ${at}`;
          target.dispatchEvent(event);
          return event.defaultPrevented;
        },
        [type, selector],
      );
    for (const where of ["header", '[role="tablist"]', ".allow-set"]) {
      expect(await kept("dragover", where)).toBe(true);
      expect(await kept("drop", where)).toBe(true);
    }
    // The Action editor (CodeMirror) and a file input (the asset field's upload) take theirs themselves.
    expect(await kept("dragover", "#tabpanel-action .cm-content")).toBe(false);
    expect(await kept("dragover", '.asset-field input[type="file"]')).toBe(false);
    expect(await kept("drop", '.asset-field input[type="file"]')).toBe(false);
    expect(app.problems).toEqual([]);
  });

  it("turns a CSV dropped on the canvas into rows and totals with no code: Load asset, Parse CSV, Column statistics", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.setViewportSize({ width: 1400, height: 900 });
    await newWorkflow(page, "Prices");
    await dropFiles(page, ".react-flow__pane", [
      { name: "prices.csv", type: "text/csv", text: 'item,price\ntea,3\n"cake, lemon",4.5\n' },
    ]);
    await node(page, "asset_load").getByText("prices.csv").waitFor();
    // Found by the word people use for it.
    await addNode(page, "spreadsheet", "csv.parse");
    await select(page, "csv_parse");
    const inspector = page.getByRole("region", { name: "Inspector" });
    await inspector.getByRole("combobox", { name: "Connect text from" }).selectOption({ index: 1 });
    await inspector.getByRole("button", { name: "Connect text", exact: true }).click();
    await inspector.getByText("connected from asset_load.output").waitFor();
    await inspector.getByRole("checkbox", { name: "typed" }).check();
    // A column's total, from the rows.
    await addNode(page, "total", "table.stats");
    await select(page, "table_stats");
    await inspector.getByRole("combobox", { name: "Connect rows from" }).selectOption("csv_parse.output");
    await inspector.getByRole("button", { name: "Connect rows", exact: true }).click();
    // Reading an asset and working on its rows change nothing: it runs without asking. With no column
    // named, the totals say which to name.
    const run = page.getByRole("button", { name: "Run workflow" });
    await run.click();
    await inspector.getByText("the rows are records; name the column to total (item, price)").waitFor();
    // The columns those rows had are offered: one press names it.
    const choices = inspector.getByRole("group", { name: "Columns in the last run:" });
    await choices.getByRole("button", { name: "price" }).click();
    expect(await inspector.getByRole("textbox", { name: /^column/ }).inputValue()).toBe("price");
    expect(await choices.getByRole("button", { name: "price" }).getAttribute("aria-pressed")).toBe("true");
    expect(await accessibilityProblems(page)).toEqual([]);
    await run.click();
    await page.getByRole("status", { name: "Column statistics: done" }).waitFor();
    const totals = inspector.getByRole("region", { name: "Last run" });
    await expect.poll(() => totals.textContent()).toContain('"sum": 7.5');
    expect(await totals.textContent()).toContain('"count": 2');
    await select(page, "csv_parse");
    // Its rows, as a table, in its Last run (cells as JSON: the text quoted, the numbers typed).
    const table = inspector.getByRole("region", { name: "Last run" }).getByRole("table");
    await expect
      .poll(() => table.getByRole("row").allTextContents())
      .toEqual(["itemprice", '"tea"3', '"cake, lemon"4.5']);
    expect(app.problems).toEqual([]);
  });
});
