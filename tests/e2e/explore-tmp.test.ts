import sharp from "sharp";
import { it } from "vitest";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { action, agent, send } from "./agent-page.ts";
import { openApp } from "./browser.ts";
import { openTab } from "./editor.ts";
import { autoAction } from "./panel.ts";

it("tour", async () => {
  await using fake = await startFakeOpenAI({
    script: [
      {
        tool_calls: [
          action(
            `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";\nexport default await workflows.list();`,
          ),
        ],
      },
      { text: "You have **one** workflow: `Shrink`. Want me to run it?" },
    ],
  });
  await using app = await openApp({ agent: agent(fake) });
  const { page, server } = app;
  await page.setViewportSize({ width: 1280, height: 800 });
  await openTab(page, "Action");
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
  const red = await sharp({ create: { width: 64, height: 48, channels: 3, background: "red" } })
    .png()
    .toBuffer();
  await page
    .getByLabel("Upload image for photo")
    .setInputFiles({ name: "red.png", mimeType: "image/png", buffer: red });
  await page.waitForTimeout(500);
  await page.getByRole("button", { name: "Run workflow" }).click();
  await page.getByRole("button", { name: "Yes, run it" }).click();
  await page.getByText("small: red-resized.png").waitFor();
  await page.screenshot({ path: "/work/scr/1-editor.png" });
  await openTab(page, "Jobs");
  await page.waitForTimeout(800);
  await page.screenshot({ path: "/work/scr/2-jobs.png" });
  await page.getByRole("tab", { name: "Assets" }).click();
  await page.waitForTimeout(800);
  await page.screenshot({ path: "/work/scr/3-assets.png" });
  await page
    .getByRole("tab", { name: "Agent" })
    .click()
    .catch(() => {});
  await send(page, "what workflows do I have?");
  await page.getByText("Want me to run it?").waitFor();
  await page.waitForTimeout(500);
  await page.screenshot({ path: "/work/scr/4-agent.png" });
  await page.setViewportSize({ width: 700, height: 900 });
  await page.waitForTimeout(500);
  await page.screenshot({ path: "/work/scr/5-narrow.png", fullPage: true });
  await page.getByRole("region", { name: "Conversation" }).scrollIntoViewIfNeeded();
  await page.waitForTimeout(500);
  await page.screenshot({ path: "/work/scr/6-narrow-conv.png" });
  console.log("problems", app.problems);
}, 120_000);
