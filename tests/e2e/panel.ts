/** Helpers to drive the agent panel by its accessible names (DESIGN.md section 10). */
import type { Page } from "playwright-core";

export async function runAction(page: Page, code: string): Promise<void> {
  const editor = page.getByRole("textbox", { name: "Action" });
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  // insertText types the code as one edit, without the editor's auto-indent or bracket closing.
  await page.keyboard.insertText(code);
  await page.getByRole("button", { name: "Run", exact: true }).click();
}

export function result(page: Page) {
  return page.getByRole("region", { name: "Result" });
}

/** Waits until the Result region shows a finished observation and returns its text. */
export async function finished(page: Page): Promise<string> {
  const region = result(page);
  await region.locator(".status.ok, .status.failed").waitFor();
  return (await region.textContent()) ?? "";
}

export function dialog(page: Page) {
  return page.getByRole("dialog");
}
