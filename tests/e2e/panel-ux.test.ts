/**
 * The panel's smaller things: the approval dialog keeps focus inside, Escape answers Deny, focus goes
 * back where it was, an image argument shows as a thumbnail (not base64); the Result shows an array of
 * flat objects as a table and other JSON as a collapsible tree; History restores an entry's code and
 * result and can be cleared.
 */
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { openApp } from "./browser.ts";
import { openTab } from "./editor.ts";
import { dialog, finished, result, runAction } from "./panel.ts";

describe("the panel, as a person uses it", () => {
  it("traps focus in the approval dialog, answers Deny on Escape, restores focus, shows an image argument as a thumbnail", async () => {
    await using app = await openApp();
    const { page } = app;
    const png = await sharp({ create: { width: 4, height: 2, channels: 3, background: "#c00" } })
      .png()
      .toBuffer();
    await runAction(
      page,
      `import { assets } from "@nodetool-ai/sandbox-nodetool/assets";
const bytes = new Uint8Array([${[...png].join(",")}]);
await assets.save({ name: "red.png", content: bytes, content_type: "image/png" });
export default "saved";`,
    );
    const ask = dialog(page);
    await ask.waitFor();
    const thumbnail = ask.getByRole("img", { name: /image 1: png/ });
    await expect.poll(() => thumbnail.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(4);
    const text = (await ask.textContent()) ?? "";
    expect(text).toContain("[image 1: png");
    expect(text).not.toContain(png.toString("base64").slice(0, 24));

    // Focus starts on Deny and Tab never leaves the dialog.
    expect(await ask.getByRole("button", { name: "Deny" }).evaluate((b) => b === document.activeElement)).toBe(true);
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press("Tab");
      expect(await ask.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    }
    await page.keyboard.press("Escape");
    expect(await finished(page)).toContain("permission_denied");
    expect(await dialog(page).count()).toBe(0);
    // Focus is back on the Run button the person pressed.
    await expect
      .poll(() => page.getByRole("button", { name: "Run", exact: true }).evaluate((b) => b === document.activeElement))
      .toBe(true);
    expect(await app.server.app.store.sql("SELECT count(*) AS n FROM assets").get()).toEqual({ n: 0 });
  });

  it("scrolls a table wider than the panel in its own box: the Result and the panel keep their width", async () => {
    await using app = await openApp();
    const { page } = app;
    await runAction(
      page,
      'export default [1, 2].map((n) => Object.fromEntries(Array.from({ length: 8 }, (_, i) => ["column_" + i, "wf_" + "x".repeat(30) + n])));',
    );
    await finished(page);
    await result(page).getByRole("table").waitFor();
    const overflow = (selector: string) => page.locator(selector).evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(await overflow(".agent-panel")).toBeLessThanOrEqual(0);
    expect(await result(page).evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    const scrolling = result(page).locator(".value-table-box");
    expect(await scrolling.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    expect(app.problems).toEqual([]);
  });

  it("shows flat rows as a table and other JSON as a collapsible tree; History restores and clears", async () => {
    await using app = await openApp();
    const { page } = app;
    // The sample action wraps inside the panel: no part of a line (its `{ limit: 5 }`) is out of sight.
    const scroller = page.locator(".code-editor .cm-scroller");
    await expect.poll(() => scroller.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    expect(await page.getByRole("textbox", { name: "Action" }).textContent()).toContain("{ limit: 5 }");
    await runAction(page, 'export default [{ name: "ada", age: 36 }, { name: "grace", age: 85 }];');
    await finished(page);
    const table = result(page).getByRole("table").first();
    expect(await table.getByRole("columnheader").allTextContents()).toEqual(["name", "age"]);
    expect(await table.getByRole("row").count()).toBe(3);
    expect(await table.textContent()).toContain('"grace"');

    await runAction(page, 'export default { outer: { inner: [1, 2, 3], label: "deep" }, flag: true };');
    const text = await finished(page);
    expect(text).toContain('"label": "deep"');
    expect(text).toContain('"flag": true');
    const branch = result(page).locator("details.json-branch").nth(1);
    expect(await branch.getAttribute("open")).not.toBeNull();
    await branch.locator("summary").first().click();
    expect(await branch.getAttribute("open")).toBeNull();
    expect(await branch.textContent()).toContain("2 keys");

    // An image result shows at its own aspect ratio (4 x 2), not stretched to its caption.
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    const png = await sharp({ create: { width: 40, height: 20, channels: 3, background: "#0a0" } })
      .png()
      .toBuffer();
    await runAction(
      page,
      `import { assets } from "@nodetool-ai/sandbox-nodetool/assets";
const saved = await assets.save({ name: "green.png", content: new Uint8Array([${[...png].join(",")}]) });
export default { picture: saved.asset };`,
    );
    await finished(page);
    const img = result(page).locator("img.asset-preview");
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(40);
    const box = await img.boundingBox();
    expect(Math.round(((box?.width ?? 0) - 2) / ((box?.height ?? 1) - 2))).toBe(2);

    // $-keys show as the action wrote them (the wire's escaping never reaches the page's Result).
    await runAction(page, `export default { "$ref": "#/a", "$$x": 1 };`);
    await finished(page);
    const shown = (await result(page).textContent()) ?? "";
    expect(shown).toContain('"$ref"');
    expect(shown).toContain('"$$x"');
    expect(shown).not.toContain("$$ref");
    expect(shown).not.toContain("$$$x");

    await openTab(page, "History");
    const history = page.getByRole("region", { name: "History" });
    expect(await history.getByRole("listitem").count()).toBe(4);
    // The oldest entry: its code and its table come back in the Action tab.
    await history.getByRole("listitem").nth(3).getByRole("button").click();
    expect(await page.getByRole("tab", { name: "Action" }).getAttribute("aria-selected")).toBe("true");
    expect(await page.getByRole("textbox", { name: "Action" }).textContent()).toContain("grace");
    expect(await result(page).getByRole("columnheader").allTextContents()).toEqual(["name", "age"]);
    // The cursor is in the restored code; what the person types there goes when the entry is restored again.
    const editor = page.getByRole("textbox", { name: "Action" });
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Action");
    await page.keyboard.insertText("// scratch ");
    expect(await editor.textContent()).toContain("// scratch");
    await openTab(page, "History");
    await history.getByRole("listitem").nth(3).getByRole("button").click();
    await expect.poll(() => editor.textContent()).not.toContain("// scratch");
    expect(await editor.textContent()).toContain("grace");
    // The image entry comes back with its image, as the run showed it.
    await openTab(page, "History");
    await history.getByRole("listitem").nth(1).getByRole("button").click();
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(40);

    await openTab(page, "History");
    await history.getByRole("button", { name: "Clear history" }).click();
    await history.getByText("No actions yet.").waitFor();
    await page.reload();
    await openTab(page, "History");
    await page.getByRole("region", { name: "History" }).getByText("No actions yet.").waitFor();
  });
});
