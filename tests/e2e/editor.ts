/** Helpers to drive the workflow editor by its accessible names. */
import type { Page } from "playwright-core";

/** `New workflow`, named inline; waits until it is open. */
export async function newWorkflow(page: Page, name: string): Promise<void> {
  await page.getByRole("button", { name: "New workflow" }).click();
  const field = page.getByRole("textbox", { name: "Name of the new workflow" });
  await field.fill(name);
  await field.press("Enter");
  await page.getByText(`${name} · version 1`).waitFor();
}

/** Clicks the canvas's top left corner (empty: the view keeps a margin there): the canvas has focus. */
export async function focusCanvas(page: Page): Promise<void> {
  const box = await page.getByRole("region", { name: "Workflow canvas" }).boundingBox();
  if (!box) throw new Error("no canvas");
  await page.mouse.click(box.x + 12, box.y + 12);
}

/** Chooses `item` (`Duplicate`, `Export`, `Versions`, `Close`, `Delete`) in the toolbar's `More` menu. */
export async function workflowAction(
  page: Page,
  item: "Duplicate" | "Export" | "Versions" | "Close" | "Delete",
): Promise<void> {
  await page.getByRole("button", { name: "More workflow actions" }).click();
  await page.getByRole("menu", { name: "Workflow actions" }).getByRole("menuitem", { name: item }).click();
}

/** Adds a node from the palette (opened with `Add node`), searching `query` and picking `typeId`. */
export async function addNode(page: Page, query: string, typeId: string): Promise<void> {
  await page.getByRole("button", { name: "Add node" }).click();
  await page.getByRole("combobox", { name: "Search node types" }).fill(query);
  await page
    .getByRole("listbox", { name: "Node types" })
    .getByRole("option", { name: new RegExp(`\\b${typeId.replace(".", "\\.")}$`) })
    .click();
}

export function node(page: Page, id: string) {
  return page.locator(`.react-flow__node[data-id="${id}"]`);
}

/**
 * Selects a node by its title and waits until the inspector shows that node (it says "type · id"): a
 * field filled right after the click would otherwise reach the inspector of the node selected before.
 */
export async function select(page: Page, id: string): Promise<void> {
  await node(page, id).locator(".wf-node-title").click();
  await page
    .getByRole("region", { name: "Inspector" })
    .getByText(new RegExp(`\u00b7 ${id}$`))
    .waitFor();
}

/** Drags from one handle to another with real mouse moves (React Flow ignores dragTo). */
export async function dragHandle(
  page: Page,
  from: { node: string; handle: string; side: "source" | "target" },
  to: { node: string; handle: string; side: "source" | "target" } | { x: number; y: number },
): Promise<void> {
  const handle = (n: string, h: string, side: string) =>
    page.locator(`.react-flow__node[data-id="${n}"] .react-flow__handle.${side}[data-handleid="${h}"]`);
  const s = await handle(from.node, from.handle, from.side).boundingBox();
  if (!s) throw new Error(`handle ${from.node}.${from.handle} is not visible`);
  let target: { x: number; y: number };
  if ("node" in to) {
    const t = await handle(to.node, to.handle, to.side).boundingBox();
    if (!t) throw new Error(`handle ${to.node}.${to.handle} is not visible`);
    target = { x: t.x + t.width / 2, y: t.y + t.height / 2 };
  } else {
    target = to;
  }
  await page.mouse.move(s.x + s.width / 2, s.y + s.height / 2);
  await page.mouse.down();
  await page.mouse.move(target.x, target.y, { steps: 15 });
  await page.mouse.up();
}

/**
 * Connects an output to an input by dragging between the handles, and waits for the edge. A drag that
 * started while the view was still moving (a fit after new nodes, on a loaded machine) is tried again.
 */
export async function connect(
  page: Page,
  from: { node: string; handle: string },
  to: { node: string; handle: string },
): Promise<void> {
  const edge = page.locator(`.react-flow__edge[data-id]`);
  const before = await edge.count();
  for (let attempt = 0; attempt < 3; attempt++) {
    await dragHandle(page, { ...from, side: "source" }, { ...to, side: "target" });
    for (let i = 0; i < 20 && (await edge.count()) === before; i++) await page.waitForTimeout(50);
    if ((await edge.count()) > before) return;
  }
  throw new Error(`could not connect ${from.node}.${from.handle} -> ${to.node}.${to.handle}`);
}

export async function openTab(page: Page, name: "Action" | "History" | "Jobs"): Promise<void> {
  await page.getByRole("tab", { name }).click();
}

/**
 * Waits until this page's browser keeps a draft of the open workflow (IndexedDB, written a moment
 * after the edit): a reload right after an edit would otherwise race the write.
 */
export async function draftKept(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      new Promise<boolean>((resolve) => {
        const opened = indexedDB.open("keyval-store");
        opened.onerror = () => resolve(false);
        opened.onsuccess = () => {
          const keys = opened.result.transaction("keyval").objectStore("keyval").getAllKeys();
          keys.onsuccess = () => resolve(keys.result.some((key) => String(key).startsWith("draft:")));
          keys.onerror = () => resolve(false);
        };
      }),
  );
}
