/**
 * An accessibility scan of what a page shows now, with axe-core (the engine browsers' own audits use),
 * injected into the page: each violation as `rule (impact): target — summary`, none when it passes.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Frame, Page } from "playwright-core";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeResult {
  violations: {
    id: string;
    impact: string | null;
    help: string;
    nodes: { target: unknown[]; failureSummary?: string }[];
  }[];
}

export async function accessibilityProblems(page: Page | Frame): Promise<string[]> {
  // Evaluated by the browser's devtools protocol, which the page's Content-Security-Policy does not cover.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const result = (await page.evaluate(() =>
    (window as unknown as { axe: { run(options: object): Promise<unknown> } }).axe.run({
      resultTypes: ["violations"],
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    }),
  )) as AxeResult;
  return result.violations.flatMap((v) =>
    v.nodes.map((node) => `${v.id} (${v.impact}): ${JSON.stringify(node.target)} — ${v.help}`),
  );
}
