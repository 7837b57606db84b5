import { randomBytes } from "node:crypto";
import { it } from "vitest";
import { openApp } from "./browser.ts";

it("explore: a 6 MB upload", async () => {
  await using app = await openApp();
  const { page } = app;
  await page.getByRole("tab", { name: "Assets" }).click();
  const view = page.getByRole("region", { name: "Assets" });
  await view.getByText("No assets yet").waitFor();
  const t0 = Date.now();
  await view
    .getByLabel("Files to upload")
    .setInputFiles([{ name: "big.bin", mimeType: "application/octet-stream", buffer: randomBytes(6 * 1024 * 1024) }]);
  await page.waitForTimeout(30000);
  console.log("TEXT", Date.now() - t0, await view.innerText());
  console.log("PROBLEMS", app.problems);
});
