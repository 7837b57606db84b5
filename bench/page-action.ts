/**
 * Runs an action from a page's own `Action` editor (the app's, or the widget's in its frame) as a
 * person would, timed in that page: from the Run click to the shown result.
 */
import type { Frame, Page } from "playwright-core";

/** Puts `code` in the editor, clicks Run in the page and times it there: click to the shown result. */
export async function action(page: Page | Frame, code: string): Promise<{ value: unknown; wallMs: number }> {
  const editor = page.getByRole("textbox", { name: "Action" });
  await editor.click();
  const keyboard = "keyboard" in page ? page.keyboard : page.page().keyboard;
  await keyboard.press("ControlOrMeta+a");
  await keyboard.press("Delete");
  await keyboard.insertText(code);
  // As a person would: the click comes once the page has settled after the typing (the editor's own
  // highlighting and layout run in idle time, and would otherwise share the timed run's main thread).
  await page.evaluate(() => new Promise((resolve) => requestIdleCallback(resolve, { timeout: 1000 })));
  const run = await page.getByRole("button", { name: "Run", exact: true }).elementHandle();
  const region = page.getByRole("region", { name: "Result" });
  const section = await region.elementHandle();
  // aria-busy goes true when the run starts and false when its result is shown.
  const wallMs = await page.evaluate(
    ([button, result]) =>
      new Promise<number>((resolve) => {
        let started = false;
        const t0 = performance.now();
        const observer = new MutationObserver(() => {
          const busy = result?.getAttribute("aria-busy") === "true";
          if (busy) started = true;
          else if (started) {
            observer.disconnect();
            resolve(performance.now() - t0);
          }
        });
        observer.observe(result as Element, { attributes: true, attributeFilter: ["aria-busy"] });
        (button as HTMLButtonElement).click();
      }),
    [run, section] as const,
  );
  await region.locator(".status.ok, .status.failed").waitFor({ timeout: 120_000 });
  const json = await region
    .locator("pre.json")
    .first()
    .textContent({ timeout: 1000 })
    .catch(() => null);
  if (json === null) throw new Error(`action failed: ${await region.textContent()}`);
  return { value: JSON.parse(json), wallMs };
}
