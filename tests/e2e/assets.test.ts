/**
 * The Assets tab: the person's files, found by name and kind, uploaded (the person's own act), shown
 * with a thumbnail, downloaded, asked about, and deleted after a confirmation naming the file.
 */
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { PREVIEW_BYTES } from "../../web/src/panel/AssetText.tsx";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { accessibilityProblems } from "./a11y.ts";
import { agent } from "./agent-page.ts";
import { openApp, uploadStarted } from "./browser.ts";
import { newWorkflow } from "./editor.ts";

const text = (s: string) => new TextEncoder().encode(s);

describe("the Assets tab", () => {
  it("lists, finds, uploads, asks about and deletes the person's assets", async () => {
    await using fake = await startFakeOpenAI({ script: [] });
    await using app = await openApp({ agent: agent(fake) });
    const { page, server } = app;
    const [me] = await server.app.credentials.listUsers();
    if (!me) throw new Error("no user");
    const tab = page.getByRole("tab", { name: "Assets" });
    await tab.click();
    const view = page.getByRole("region", { name: "Assets" });
    await view.getByText("No assets yet: upload files here (or drop them), or let an action save some.").waitFor();

    // Upload two files: an image and a text.
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#0a0" } })
      .png()
      .toBuffer();
    await view.getByLabel("Files to upload").setInputFiles([
      { name: "pic.png", mimeType: "image/png", buffer: png },
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("remember the milk") },
    ]);
    await view.getByRole("status").getByText("Uploaded 2 files.").waitFor();
    const rows = view.getByRole("list", { name: "Your assets" }).getByRole("listitem");
    await expect.poll(() => rows.count()).toBe(2);
    await view.getByText("2 assets.").waitFor();
    const pic = rows.filter({ hasText: "pic.png" });
    await expect.poll(() => pic.locator("img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(8);
    // Its size as stored (a small file in bytes, not "1 KiB").
    const { size } = (await server.app.store.sql("SELECT size FROM assets WHERE name = 'pic.png'").get()) as {
      size: number;
    };
    expect(size).toBeLessThan(1024);
    expect(await pic.getByText(`image/png · ${size} bytes · just now`, { exact: true }).count()).toBe(1);
    const download = pic.getByRole("link", { name: "Download pic.png" });
    expect(await download.getAttribute("download")).toBe("pic.png");
    expect(await download.getAttribute("href")).toMatch(/\/assets\/ast_[0-9a-f]{32}$/);
    // Its thumbnail opens the image itself.
    expect(await pic.getByRole("link", { name: "Open pic.png" }).getAttribute("href")).toBe(
      await download.getAttribute("href"),
    );

    // An asset an action saved meanwhile shows when the tab is shown again; so do many (Show more).
    const store = server.app.assets;
    for (let i = 0; i < 50; i++) {
      await store.insert(me.userId, {
        name: `report-${i}.txt`,
        contentType: "text/plain",
        kind: "text",
        bytes: text(`r${i}`),
      });
    }
    await page.getByRole("tab", { name: "Jobs" }).click();
    await tab.click();
    await view.getByText("52 assets.").waitFor();
    expect(await rows.count()).toBe(50);
    await view.getByRole("button", { name: "Show more (2 older)" }).click();
    await expect.poll(() => rows.count()).toBe(52);

    // Found by name, or by kind.
    await view.getByRole("searchbox", { name: "Find assets" }).fill("NOTES");
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining("notes.txt")]);
    await view.getByText("1 asset matches.").waitFor();
    await view.getByRole("searchbox", { name: "Find assets" }).fill("");
    await view.getByRole("combobox", { name: "Show" }).selectOption("Images");
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining("pic.png")]);
    await view.getByText("1 asset matches.").waitFor();
    await view.getByRole("combobox", { name: "Show" }).selectOption("All kinds");
    await view.getByText("52 assets.").waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);

    // Ask the agent: the question is begun in Message, naming the asset (found by name: it is older
    // than the first page shows).
    await view.getByRole("searchbox", { name: "Find assets" }).fill(".png");
    await expect.poll(() => rows.count()).toBe(1);
    // Add to workflow: with none open it says why; with one open, a Load asset node of it is on the
    // canvas, selected.
    const add = pic.getByRole("button", { name: "Add to workflow: pic.png" });
    await add.click();
    await view.getByRole("alert").getByText("Not added: Open or create a workflow to add files to it.").waitFor();
    await newWorkflow(page, "With a picture");
    await tab.click();
    await add.click();
    const added = page.locator('.react-flow__node[data-id="asset_load"]');
    await added.getByText("pic.png").waitFor();
    await expect.poll(() => added.evaluate((node) => node.classList.contains("selected"))).toBe(true);
    expect(await view.getByRole("alert").count()).toBe(0);
    await pic.getByRole("button", { name: "Ask the agent about pic.png" }).click();
    const message = page.getByRole("textbox", { name: "Message" });
    await expect.poll(() => message.inputValue()).toMatch(/^About my asset "pic\.png" \(ast_[0-9a-f]{32}\): $/);

    // Delete asks first, naming it: Cancel keeps it (focus back on its Delete), Delete deletes it.
    await tab.click();
    await view.getByRole("searchbox", { name: "Find assets" }).fill("notes");
    const notes = rows.filter({ hasText: "notes.txt" });
    const remove = notes.getByRole("button", { name: "Delete notes.txt" });
    await remove.click();
    const dialog = page.getByRole("alertdialog", { name: "Delete this asset?" });
    await dialog.getByText("“notes.txt” will be deleted.", { exact: false }).waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => remove.evaluate((button) => button === document.activeElement)).toBe(true);
    await remove.click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await view.getByRole("status").getByText("Deleted “notes.txt”.").waitFor();
    await expect.poll(() => notes.count()).toBe(0);
    await view.getByText("No asset matches.").waitFor();
    const left = await server.app.store.sql("SELECT count(*) AS n FROM assets WHERE name = 'notes.txt'").get();
    expect(left).toEqual({ n: 0 });
    expect(app.problems).toEqual([]);
  });

  it("shows a text asset's text in place, its beginning when it is long, and never as HTML", async () => {
    await using app = await openApp();
    const { page, server } = app;
    const [me] = await server.app.credentials.listUsers();
    if (!me) throw new Error("no user");
    const store = server.app.assets;
    await store.insert(me.userId, {
      name: "page.html",
      contentType: "text/html",
      kind: "text",
      bytes: text("<b>not bold</b><img src=x onerror=alert(1)>\u200b"),
    });
    // Longer than the preview, with a two-byte character where it is cut.
    const long = `${"a".repeat(PREVIEW_BYTES - 1)}é and the rest`;
    await store.insert(me.userId, { name: "long.txt", contentType: "text/plain", kind: "text", bytes: text(long) });
    const pic = await sharp({ create: { width: 2, height: 2, channels: 3, background: "#00f" } })
      .png()
      .toBuffer();
    await store.insert(me.userId, { name: "dot.png", contentType: "image/png", kind: "image", bytes: pic });
    await store.insert(me.userId, {
      name: "data.json",
      contentType: "application/json",
      kind: "text",
      bytes: text('{"a":[1,2],"b":"x"}'),
    });
    await page.getByRole("tab", { name: "Assets" }).click();
    const view = page.getByRole("region", { name: "Assets" });
    await view.getByText("4 assets.").waitFor();
    // JSON read whole is indented to be read (a saved value is one long line).
    await view.getByRole("button", { name: "Show text of data.json" }).click();
    await expect
      .poll(() => view.getByRole("region", { name: "Text of data.json" }).textContent())
      .toBe('{\n  "a": [\n    1,\n    2\n  ],\n  "b": "x"\n}');
    // An image has its thumbnail, not a text to show.
    expect(await view.getByRole("button", { name: "Show text of dot.png" }).count()).toBe(0);

    const show = view.getByRole("button", { name: "Show text of page.html" });
    expect(await show.getAttribute("aria-expanded")).toBe("false");
    await show.click();
    const shown = view.getByRole("region", { name: "Text of page.html" });
    // As text, its markup and an invisible character shown as they are.
    await expect.poll(() => shown.textContent()).toBe("<b>not bold</b><img src=x onerror=alert(1)>[U+200B]");
    expect(await shown.locator("b, img").count()).toBe(0);
    const hide = view.getByRole("button", { name: "Hide text of page.html" });
    expect(await hide.getAttribute("aria-expanded")).toBe("true");
    expect(await hide.getAttribute("aria-controls")).toBe(await shown.getAttribute("id"));
    expect(await accessibilityProblems(page)).toEqual([]);
    await hide.click();
    await expect.poll(() => shown.count()).toBe(0);

    await view.getByRole("button", { name: "Show text of long.txt" }).click();
    const start = view.getByRole("region", { name: "Text of long.txt" });
    // Its first 32 KiB; the character the cut split is left out, not shown broken.
    await expect.poll(async () => (await start.textContent())?.length).toBe(PREVIEW_BYTES - 1);
    await view.getByText("The first 32 KiB of 33 KiB: Download has it all.").waitFor();
    // The box scrolls from the keyboard.
    await start.focus();
    await page.keyboard.press("End");
    await expect.poll(() => start.evaluate((box) => box.scrollTop)).toBeGreaterThan(0);
    expect(app.problems).toEqual([]);
  });

  it("uploads a file larger than a message may be, with its progress, stops one when asked, and refuses one past the asset cap before sending it", async () => {
    // A 1 MiB message cap and a 3 MiB asset cap: a 2 MiB photo fits one asset, not one message.
    await using app = await openApp({ maxBodyBytes: 1024 * 1024, assetMaxBytes: 3 * 1024 * 1024 });
    const { page } = app;
    await page.getByRole("tab", { name: "Assets" }).click();
    const view = page.getByRole("region", { name: "Assets" });
    await view.getByText("No assets yet").waitFor();
    const uploads: string[] = [];
    page.on("request", (req) => {
      if (req.method() === "POST" && new URL(req.url()).pathname === "/assets") uploads.push(req.url());
    });

    // A slow link (1 MiB/s up), so the upload takes long enough to watch its bar move.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    const slow = { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 1024 * 1024 };
    await cdp.send("Network.emulateNetworkConditions", slow);
    const bytes = Buffer.alloc(2 * 1024 * 1024, 7);
    await view.getByLabel("Files to upload").setInputFiles([{ name: "take.raw", mimeType: "", buffer: bytes }]);
    await uploadStarted(page, "take.raw");
    await view.getByRole("status").getByText("Uploaded 1 file.").waitFor();

    // Stopped half-way (a slower link still): nothing is kept, and the tab says so.
    await cdp.send("Network.emulateNetworkConditions", { ...slow, uploadThroughput: 256 * 1024 });
    await view.getByLabel("Files to upload").setInputFiles([{ name: "stopped.raw", mimeType: "", buffer: bytes }]);
    await uploadStarted(page, "stopped.raw");
    await view.getByRole("button", { name: "Stop uploading" }).click();
    await view.getByRole("status").getByText("Stopped: 0 of 1 file uploaded.").waitFor();
    await cdp.send("Network.emulateNetworkConditions", { ...slow, uploadThroughput: -1 });
    expect(await app.server.app.store.sql("SELECT name FROM assets").all()).toEqual([{ name: "take.raw" }]);
    const row = view.getByRole("list", { name: "Your assets" }).getByRole("listitem").filter({ hasText: "take.raw" });
    await row.getByText("application/octet-stream · 2.0 MiB", { exact: false }).waitFor();
    expect(uploads).toHaveLength(2);
    // The bar is gone once no file is going up.
    expect(await view.getByRole("progressbar").count()).toBe(0);

    // Past the asset cap: said at once, nothing sent.
    await view
      .getByLabel("Files to upload")
      .setInputFiles([{ name: "huge.raw", mimeType: "", buffer: Buffer.alloc(4 * 1024 * 1024, 1) }]);
    await view.getByText("Not uploaded: huge.raw: 4.0 MiB is more than one asset may be (3.0 MiB).").waitFor();
    expect(uploads).toHaveLength(2);
    expect(app.problems).toEqual([]);
    expect(await accessibilityProblems(page)).toEqual([]);
  });
});
