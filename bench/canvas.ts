/**
 * The editor with large workflows, in Debian's Chromium against the real server: for a chain of N
 * `math.add` nodes (opened from a workflow file, as `Import` does),
 *  - a run: from the `Run workflow` click to the last node showing `done` (timed in the page), beside
 *    the server's own time for the job (its row's start to end): what the page adds to show it. The
 *    first run is the one that costs (each node grows a row for its output as it finishes); a second
 *    one, with a node selected, is printed beside it;
 *  - a keystroke in the inspector's field of the first node: from the key to the node showing the
 *    new value (timed in the page), beside the same with BASE nodes.
 * No target is named for these; they are printed so a change that makes the canvas redraw everything
 * for each event shows (a first run of 300 nodes once took 9.7 s to show a 33 ms job; 100 nodes 1.2 s).
 *
 *   node --import tsx bench/canvas.ts [N...]   (default: 100 300)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { buildWebIfStale } from "../server-bridge/build.ts";
import { launchChromium, WEB_DIR } from "../tests/e2e/browser.ts";
import { startTestServer, type TestServer } from "../tests/support/server.ts";

const BASE = 10;
const KEYS = "1234567890";
const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 1);

function chain(n: number): string {
  const nodes = Array.from({ length: n }, (_, i) => ({
    id: `n${i}`,
    type: "math.add",
    data: i === 0 ? { a: 0, b: 1 } : { b: 1 },
    position: { x: (i % 20) * 220, y: Math.floor(i / 20) * 140 },
  }));
  const edges = nodes.slice(1).map((node, i) => ({
    id: `e${i}`,
    source: `n${i}`,
    sourceHandle: "output",
    target: node.id,
    targetHandle: "a",
  }));
  return JSON.stringify({ nodes, edges });
}

async function open(page: Page, n: number): Promise<void> {
  const name = `Chain ${n}`;
  const [chooser] = await Promise.all([
    page.waitForEvent("filechooser"),
    page.getByRole("button", { name: "Import" }).click(),
  ]);
  await chooser.setFiles({ name: `${name}.json`, mimeType: "application/json", buffer: Buffer.from(chain(n)) });
  await page.getByText(`${name} · version 1`).waitFor();
  await page.locator(`.react-flow__node[data-id="n${n - 1}"]`).waitFor();
}

/** Run click to the last node's `done`, in the page; and the server's time for that job. */
async function run(page: Page, server: TestServer, n: number): Promise<{ page: number; server: number }> {
  const shown = await page.evaluate(
    async (last) => {
      const start = performance.now();
      const done = new Promise<number>((resolve) => {
        const watch = new MutationObserver(() => {
          if (/done/.test(document.querySelector(`.react-flow__node[data-id="${last}"]`)?.textContent ?? "")) {
            watch.disconnect();
            resolve(performance.now() - start);
          }
        });
        watch.observe(document.body, { subtree: true, childList: true, characterData: true });
      });
      [...document.querySelectorAll("button")].find((b) => b.textContent === "Run workflow")?.click();
      return done;
    },
    `n${n - 1}`,
  );
  const row = (await server.app.store
    .sql("SELECT started_at, ended_at FROM jobs WHERE total = ? ORDER BY created_at DESC LIMIT 1")
    .get(n)) as { started_at: number; ended_at: number };
  return { page: shown, server: row.ended_at - row.started_at };
}

/** Mean key-to-node time of typing into the first node's `b` field. */
async function keystroke(page: Page): Promise<number> {
  // Selected by keyboard: with hundreds of nodes in view, the node is too small to click reliably.
  await page.locator('.react-flow__node[data-id="n0"]').focus();
  await page.keyboard.press("Enter");
  const field = page.getByRole("region", { name: "Inspector" }).getByRole("spinbutton", { name: /^b\b/ });
  await field.click();
  await page.evaluate(() => {
    const state = window as unknown as { keyAt?: number; lags: number[] };
    state.lags = [];
    document.addEventListener("keydown", () => (state.keyAt = performance.now()), true);
    const node = document.querySelector('.react-flow__node[data-id="n0"]');
    if (!node) throw new Error("no node n0");
    new MutationObserver(() => {
      if (state.keyAt === undefined) return;
      state.lags.push(performance.now() - state.keyAt);
      state.keyAt = undefined;
    }).observe(node, { subtree: true, childList: true, characterData: true });
  });
  await field.pressSequentially(KEYS, { delay: 150 });
  await page.waitForTimeout(300);
  const lags = await page.evaluate(() => (window as unknown as { lags: number[] }).lags);
  if (lags.length < KEYS.length / 2) throw new Error(`only ${lags.length} of ${KEYS.length} keys showed on the node`);
  return lags.reduce((a, b) => a + b, 0) / lags.length;
}

await buildWebIfStale();
const server = await startTestServer({ webDir: WEB_DIR, webSockets: true });
const profile = mkdtempSync(join(tmpdir(), "nt-bench-chromium-"));
const context = await launchChromium(profile);
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.url}/?token=${server.token}`);
  await page.getByRole("button", { name: "Import" }).waitFor();
  const lines = ["the editor with a chain of N math.add nodes (Chromium, socket; times in the page)"];
  let base = 0;
  for (const n of [BASE, ...(sizes.length > 0 ? sizes : [100, 300])]) {
    await open(page, n);
    const first = await run(page, server, n);
    const lag = await keystroke(page);
    // Again, with a node selected (the inspector open on it) and the first run's outputs shown.
    const last = await run(page, server, n);
    if (n === BASE) base = lag;
    lines.push(
      `  N=${String(n).padEnd(4)} first run shown in ${first.page.toFixed(0)} ms (the server's job: ${first.server} ms), ` +
        `again ${last.page.toFixed(0)} ms (${last.server} ms); ` +
        `keystroke to node ${lag.toFixed(1)} ms (/ N=${BASE}: ${(lag / base).toFixed(2)})`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  await context.close();
  await server[Symbol.asyncDispose]();
  rmSync(profile, { recursive: true, force: true });
}
