/** Helpers to drive the agent panel by its accessible names (DESIGN.md section 10). */
import type { Frame, Page } from "playwright-core";

/** A page, or a frame in one (the widget's iframe). */
type Scope = Page | Frame;

export async function runAction(page: Scope, code: string): Promise<void> {
  const keyboard = "keyboard" in page ? page.keyboard : page.page().keyboard;
  const editor = page.getByRole("textbox", { name: "Action" });
  await editor.waitFor();
  await editor.focus();
  await keyboard.press("ControlOrMeta+a");
  await keyboard.press("Delete");
  // insertText types the code as one edit, without the editor's auto-indent or bracket closing.
  await keyboard.insertText(code);
  await page.getByRole("button", { name: "Run", exact: true }).click();
}

export function result(page: Scope) {
  return page.getByRole("region", { name: "Result" });
}

/** Waits until the Result region shows a finished observation and returns its text. */
export async function finished(page: Scope): Promise<string> {
  const region = result(page);
  await region.locator(".status.ok, .status.failed").waitFor();
  return (await region.textContent()) ?? "";
}

/** Runs `code` as an action in auto mode (nothing asks); answers the result's text. */
export async function autoAction(page: Page, code: string): Promise<string> {
  await page.getByLabel("Mode", { exact: true }).selectOption("auto");
  await runAction(page, code);
  return finished(page);
}

export function dialog(page: Scope) {
  return page.getByRole("dialog");
}
