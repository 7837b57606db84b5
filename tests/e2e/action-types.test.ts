/**
 * The `Action` editor knows the capabilities' types: it completes module specifiers, exports, methods
 * and argument keys, shows a capability's call forms and description on hover, and on `Check types`
 * type-checks the action in a lazily loaded worker (TypeScript 6), showing each problem at its line and
 * column. The compiler is never part of the main bundle.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { openApp, WEB_DIR } from "./browser.ts";

const WORKFLOWS = "@nodetool-ai/sandbox-nodetool/workflows";

/** Replaces the editor's text with `before` + `after`, then asks for completion between the two. */
async function typeAndComplete(page: Page, before: string, after = ""): Promise<string[]> {
  const editor = page.getByRole("textbox", { name: "Action" });
  // Focused, not clicked: the last call's completion list may still cover the editor's middle.
  await editor.waitFor();
  await editor.focus();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(before + after);
  for (let i = 0; i < after.length; i++) await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("Control+Space");
  const list = page.getByRole("listbox");
  await list.waitFor();
  return list.getByRole("option").allTextContents();
}

describe("the Action editor and the capabilities' types", () => {
  it("completes specifiers, exports, methods and argument keys, and explains a call on hover", async () => {
    await using app = await openApp();
    const { page } = app;

    const specifiers = await typeAndComplete(page, 'import { workflows } from "@nodetool-ai/sandbox-nodetool/wo');
    expect(specifiers.some((o) => o.includes(WORKFLOWS))).toBe(true);
    expect(specifiers.some((o) => o.includes("@nodetool-ai/sandbox-nodetool/memory"))).toBe(false);

    const exports = await typeAndComplete(page, "import { list_wo", ` } from "${WORKFLOWS}";`);
    expect(exports.some((o) => o.startsWith("list_workflows"))).toBe(true);

    const methods = await typeAndComplete(page, `import { workflows } from "${WORKFLOWS}";\nawait workflows.`);
    expect(methods.some((o) => o.startsWith("list"))).toBe(true);
    expect(methods.some((o) => o.startsWith("exportDigraph"))).toBe(true);

    const keys = await typeAndComplete(
      page,
      `import { workflows } from "${WORKFLOWS}";\nawait workflows.list({ limit: 5, `,
    );
    expect(keys.some((o) => o.startsWith("offset"))).toBe(true);
    expect(keys.some((o) => o.startsWith("query"))).toBe(true);
    expect(keys.some((o) => o.startsWith("limit"))).toBe(false);
    await page.keyboard.press("Escape");

    // Hover over `list` in `workflows.list(`: its call forms and description.
    const at = await page.evaluate(() => {
      const lines = [...document.querySelectorAll(".cm-content .cm-line")];
      const line = lines.find((l) => l.textContent?.includes("workflows.list("));
      const walker = line ? document.createTreeWalker(line, NodeFilter.SHOW_TEXT) : undefined;
      for (let node = walker?.nextNode(); node; node = walker?.nextNode()) {
        const index = node.textContent?.indexOf("list(") ?? -1;
        if (index < 0) continue;
        const range = document.createRange();
        range.setStart(node, index + 1);
        range.setEnd(node, index + 2);
        const rect = range.getBoundingClientRect();
        return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
      }
      return undefined;
    });
    if (!at) throw new Error("workflows.list( is not on screen");
    await page.mouse.move(at.x, at.y);
    const tooltip = page.locator(".cm-tooltip-hover .cm-capability-hover");
    await tooltip.waitFor();
    const text = (await tooltip.textContent()) ?? "";
    expect(text).toContain("workflows.list(args?: ListWorkflowsArgs): Promise<ListWorkflowsResult>");
    expect(text).toContain("List the user's workflows, newest first");
    expect(text).toContain("limit?: number");
  }, 120_000);

  it("Check types shows each problem at its line and column; fixed code checks clean", async () => {
    await using app = await openApp();
    const { page } = app;
    const editor = page.getByRole("textbox", { name: "Action" });
    await editor.waitFor();
    await editor.focus();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(`import { workflows } from "${WORKFLOWS}";
import { memory } from "@nodetool-ai/sandbox-nodetool/memory";
const names = (await workflows.list()).map((w) => w.name);
await memory.save({ key: "greeting", value: "hi" });
export default names;`);
    await page.getByRole("button", { name: "Check types" }).click();
    const region = page.getByRole("region", { name: "Type check" });
    await region.getByRole("listitem").first().waitFor({ timeout: 120_000 });
    const problems = await region.getByRole("listitem").allTextContents();
    expect(problems).toContainEqual(expect.stringMatching(/^line 3, column 40: Property 'map' does not exist/));
    expect(problems).toContainEqual(expect.stringMatching(/^line 4, column 14: No overload matches this call/));
    // The same problems are marked in the editor at their place.
    await expect.poll(() => page.locator(".cm-lintRange-error").count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator(".cm-lintRange-error").first().textContent()).toBe("map");

    await editor.focus();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(`import { workflows } from "${WORKFLOWS}";
import { memory } from "@nodetool-ai/sandbox-nodetool/memory";
const names = (await workflows.list()).workflows.map((w) => w.name);
await memory.save({ content: "greeting", tags: ["hi"] });
export default names;`);
    await page.getByRole("button", { name: "Check types" }).click();
    await region.getByText("No type errors.").waitFor({ timeout: 120_000 });
    // The check never stood in the way of running: the action runs as before.
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.getByRole("region", { name: "Result" }).locator(".status.ok").waitFor();
    expect(app.problems).toEqual([]);
  }, 180_000);

  it("keeps the compiler out of the main bundle: only the type-check worker has it", () => {
    const html = readFileSync(join(WEB_DIR, "index.html"), "utf8");
    const entries = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
    expect(entries.length).toBeGreaterThan(0);
    const marker = "is not assignable to type";
    for (const entry of entries) expect(readFileSync(join(WEB_DIR, entry), "utf8")).not.toContain(marker);
    const assets = readdirSync(join(WEB_DIR, "assets"));
    const checker = assets.filter((name) => name.startsWith("worker-typecheck"));
    expect(checker).toHaveLength(1);
    expect(readFileSync(join(WEB_DIR, "assets", checker[0] as string), "utf8")).toContain(marker);
  });
});
