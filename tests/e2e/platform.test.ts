/**
 * Issue 7's "done when", through the panel: an action fetches a PNG from an allowed loopback server,
 * saves it as an asset, resizes it with a workflow, shows it in the panel, indexes documents in a
 * collection and searches them; all through capabilities, all persisted.
 */
import { createServer } from "node:http";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { openApp } from "./browser.ts";
import { finished, result, runAction } from "./panel.ts";

describe("assets, workflows, collections and the web from one action", () => {
  it("fetches, saves, resizes, shows the image, indexes and searches", async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 40 } } })
      .png()
      .toBuffer();
    const origin = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(png);
    });
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
    const port = (origin.address() as { port: number }).port;
    try {
      await using app = await openApp({ httpAllowHosts: [`127.0.0.1:${port}`] });
      const { page, server } = app;
      await page.getByLabel("Mode", { exact: true }).selectOption("auto");
      await runAction(
        page,
        `import { web } from "@nodetool-ai/sandbox-nodetool/web";
import { assets } from "@nodetool-ai/sandbox-nodetool/assets";
import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
import { collections } from "@nodetool-ai/sandbox-nodetool/collections";
const fetched = await web.request({ url: "http://127.0.0.1:${port}/red.png", response_type: "bytes" });
const saved = await assets.save("red.png", fetched.bytes, "image/png");
const graph = {
  nodes: [
    { id: "in", type: "workflow.input", data: { name: "image" } },
    { id: "resize", type: "image.resize", data: { width: 16 } },
    { id: "out", type: "workflow.output", data: { name: "small" } },
  ],
  edges: [
    { id: "e1", source: "in", sourceHandle: "output", target: "resize", targetHandle: "image" },
    { id: "e2", source: "resize", sourceHandle: "output", target: "out", targetHandle: "value" },
  ],
};
const wf = await workflows.create({ name: "shrink", graph });
const job = await workflows.run({ workflow_id: wf.id, inputs: { image: saved.asset } });
const small = await assets.get(job.outputs.small);
await collections.create("notes");
await collections.index("notes", { documents: [
  { text: "Red squares are resized by the shrink workflow." },
  { text: "Collections search text with SQLite full-text search." },
  { text: "Nothing about colours here." },
] });
const hits = await collections.query("notes", "resized red");
export default { small: job.outputs.small, width: small.width, height: small.height, status: job.status, top: hits.results[0].text };`,
      );
      const text = await finished(page);
      expect(text, text).toContain('"width": 16');
      expect(text).toContain('"height": 12');
      expect(text).toContain("Red squares");
      // The resized image shows inline in the Result.
      const img = result(page).locator("img.asset-preview");
      await img.waitFor();
      await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(16);
      // All persisted: two image assets, one workflow, one completed job, a collection.
      const { store } = server.app;
      expect(await store.sql("SELECT count(*) AS n FROM workflows").get()).toEqual({ n: 1 });
      expect(((await store.sql("SELECT count(*) AS n FROM assets").get()) as { n: number }).n).toBe(2);
      expect(await store.sql("SELECT status FROM jobs").all()).toEqual([{ status: "completed" }]);
    } finally {
      origin.close();
    }
  });
});
