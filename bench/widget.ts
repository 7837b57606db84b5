/**
 * The widget's round trip (DESIGN.md section 8), in Debian's Chromium against the real server: a
 * trivial action run by a host page on another site through `widget.run` (host -> postMessage ->
 * iframe -> its sandbox and the server -> postMessage -> host, timed in the host page), beside the
 * same action run in the editor page (Run click to shown result, timed in that page: bench/page-action.ts).
 * Target: widget.run / editor page at most 1.3. The same action from the widget's own Action editor
 * (timed like the editor page's) is printed beside them.
 *
 * Both pages are warmed up first (WARMUP actions each); each round takes RUNS of each, interleaved
 * (the order alternates between rounds), and the medians over rounds are printed.
 *
 *   node --import tsx bench/widget.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { buildWebIfStale } from "../server-bridge/build.ts";
import { E2E_TRANSPORT } from "../tests/e2e/browser.ts";
import { launchBlockingThirdPartyCookies, startHostSite, widgetFrame } from "../tests/e2e/widget-host.ts";
import { startTestServer } from "../tests/support/server.ts";
import { addWidget } from "../tests/support/widgets.ts";
import { action } from "./page-action.ts";

const ROUNDS = 5;
const RUNS = 20;
const WARMUP = 20;
const TRIVIAL = "export default 1;";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

interface HostWindow {
  ready: Promise<string>;
  widget: { run(source: string): Promise<{ ok: boolean; result?: unknown }> };
}

/** `runs` sequential widget.run calls timed in the host page; the mean of one. */
function widgetRuns(page: Page, runs: number): Promise<number> {
  return page.evaluate(
    async ({ source, runs }) => {
      const { widget } = window as unknown as HostWindow;
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const observation = await widget.run(source);
        times.push(performance.now() - t0);
        if (!observation.ok || observation.result !== 1) throw new Error(`widget.run: ${JSON.stringify(observation)}`);
      }
      return times.reduce((a, b) => a + b, 0) / times.length;
    },
    { source: TRIVIAL, runs },
  );
}

async function pageRuns(page: Parameters<typeof action>[0], runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { value, wallMs } = await action(page, TRIVIAL);
    if (value !== 1) throw new Error(`action: ${JSON.stringify(value)}`);
    times.push(wallMs);
  }
  return mean(times);
}

await buildWebIfStale();
const server = await startTestServer({ webDir: join(import.meta.dirname, "..", "dist", "web"), webSockets: true });
const host = await startHostSite(server, { id: "", mintKey: "" });
const profile = mkdtempSync(join(tmpdir(), "nt-bench-chromium-"));
const context = await launchBlockingThirdPartyCookies(profile);
try {
  host.widget = await addWidget(server, { origins: [host.origin] });
  const editor = await context.newPage();
  await editor.goto(`${server.url}/?token=${server.token}`);
  await editor.getByRole("button", { name: "Run", exact: true }).waitFor();
  const hostPage = await context.newPage();
  await hostPage.goto(`${host.origin}/`);
  await hostPage.waitForFunction(() => (window as unknown as Partial<HostWindow>).ready !== undefined);
  const ready = await hostPage.evaluate(() => (window as unknown as HostWindow).ready);
  if (ready !== "ready") throw new Error(`the widget did not open: ${ready}`);
  const frame = await widgetFrame(hostPage);
  await frame.getByRole("button", { name: "Run", exact: true }).waitFor();

  await editor.bringToFront();
  await pageRuns(editor, WARMUP);
  await hostPage.bringToFront();
  await widgetRuns(hostPage, WARMUP);
  await pageRuns(frame, WARMUP);

  const rounds: { editor: number; run: number; ui: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const takeEditor = async () => {
      await editor.bringToFront();
      return pageRuns(editor, RUNS);
    };
    const first = round % 2 === 0 ? await takeEditor() : undefined;
    await hostPage.bringToFront();
    const run = await widgetRuns(hostPage, RUNS);
    const ui = await pageRuns(frame, RUNS);
    rounds.push({ editor: first ?? (await takeEditor()), run, ui });
  }

  const m = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
  const byEditor = m((r) => r.run / r.editor);
  process.stdout.write(
    [
      `widget round trip (Chromium, third-party cookies blocked, host on ${host.origin}, app on ${server.url}, ${E2E_TRANSPORT === "http" ? "HTTP" : "socket"}; medians of ${ROUNDS} interleaved rounds of ${RUNS} runs of \`${TRIVIAL}\`)`,
      `  editor page, Run click to shown result:       ${m((r) => r.editor).toFixed(2)} ms`,
      `  host page, widget.run round trip:             ${m((r) => r.run).toFixed(2)} ms`,
      `  widget.run / editor page:                     ${byEditor.toFixed(2)} (target <= 1.3: ${byEditor <= 1.3 ? "met" : "NOT met"})`,
      `  widget's own Action editor, click to result:  ${m((r) => r.ui).toFixed(2)} ms (/ editor page = ${m((r) => r.ui / r.editor).toFixed(2)})`,
    ].join("\n"),
  );
  process.stdout.write("\n");
} finally {
  await context.close();
  await host.close();
  await server[Symbol.asyncDispose]();
  rmSync(profile, { recursive: true, force: true });
}
