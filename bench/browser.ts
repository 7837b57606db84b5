/**
 * The browser path, measured in Debian's Chromium against the real server (one run):
 *
 * - full-path cost of one guest call (guest -> worker -> page -> tRPC -> invoke -> the `shared.list`
 *   read capability) divided by the baseline of a bare POST fetch of the same JSON from the page plus
 *   a bare worker message round trip (target: at most 1.25);
 * - 100 concurrent guest calls: how many HTTP requests they took (target: 1) and their wall time
 *   divided by one call's (target: at most 3);
 * - warm and cold action start in the browser.
 *
 *   node --import tsx bench/browser.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { startApp } from "../server-bridge/app.ts";
import { buildWebIfStale } from "../server-bridge/build.ts";
import { configFromEnv } from "../server-bridge/config.ts";
import { launchChromium } from "../tests/e2e/browser.ts";

const SEQUENTIAL = 200;
const CONCURRENT = 100;
const SHARED = "@nodetool-ai/sandbox-nodetool/shared";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function action(page: Page, code: string): Promise<unknown> {
  const editor = page.getByRole("textbox", { name: "Action" });
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(code);
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const region = page.getByRole("region", { name: "Result" });
  await region.locator(".status.ok, .status.failed").waitFor({ timeout: 120_000 });
  const json = await region
    .locator("pre.json")
    .first()
    .textContent({ timeout: 1000 })
    .catch(() => null);
  if (json === null) throw new Error(`action failed: ${await region.textContent()}`);
  return JSON.parse(json);
}

const dataDir = mkdtempSync(join(tmpdir(), "nt-bench-"));
const profile = mkdtempSync(join(tmpdir(), "nt-bench-chromium-"));
const webDir = await buildWebIfStale();
const server = await startApp(configFromEnv({}, { port: 0, dataDir, webDir }), () => {});
const context = await launchChromium(profile);
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.url}/?token=${server.app.credentials.adminToken}`);
  await page.getByRole("button", { name: "Run", exact: true }).waitFor();

  // Cold start: the first action right after the page loaded (the worker may still be starting; the
  // page compiles the wasm once and hands it over). Warm: the same trivial action again. Both are wall
  // time from the click to the shown result, and the observation's own duration inside the worker.
  const startOf = async () => {
    const t0 = performance.now();
    await action(page, "export default 1;");
    const text = (await page.getByRole("region", { name: "Result" }).textContent()) ?? "";
    return { wall: performance.now() - t0, inside: Number(text.match(/ok in (\d+) ms/)?.[1] ?? Number.NaN) };
  };
  const cold = await startOf();
  const warm: { wall: number; inside: number }[] = [];
  for (let i = 0; i < 15; i++) warm.push(await startOf());

  // Full path, sequential calls timed inside the guest (performance.now is not in QuickJS; Date.now is ms).
  const full = (await action(
    page,
    `import { shared } from "${SHARED}";
await shared.list();
const t0 = Date.now();
for (let i = 0; i < ${SEQUENTIAL}; i++) await shared.list();
export default (Date.now() - t0) / ${SEQUENTIAL};`,
  )) as number;

  // Concurrent calls: count the HTTP requests that carried them.
  let requests = 0;
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().includes("run.invoke") && r.postData()?.includes(SHARED)) requests++;
  });
  const one = (await action(
    page,
    `import { shared } from "${SHARED}";\nconst t0 = Date.now();\nawait shared.list();\nexport default Date.now() - t0;`,
  )) as number;
  requests = 0;
  const many = (await action(
    page,
    `import { shared } from "${SHARED}";
const t0 = Date.now();
await Promise.all(Array.from({ length: ${CONCURRENT} }, () => shared.list()));
export default Date.now() - t0;`,
  )) as number;

  // Baseline, in the page: a bare POST of the same JSON, and a bare worker message round trip.
  const body = JSON.stringify({ runId: "run_x", module: SHARED, export: "list", args: [], callId: "c" });
  // Passed as source text: the TypeScript loader would otherwise inject helpers the page does not have.
  const baseline = (await page.evaluate(`(async () => {
    const body = ${JSON.stringify(body)}, n = ${SEQUENTIAL};
    const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const post = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await (await fetch("/health", { method: "POST", headers: { "content-type": "application/json" }, body })).text();
      post.push(performance.now() - t0);
    }
    const src = "onmessage = (e) => postMessage(e.data);";
    const worker = new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" })));
    const trip = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await new Promise((resolve) => {
        worker.onmessage = () => resolve();
        worker.postMessage({ type: "APPLY", path: ["calls"], argumentList: [{ type: "RAW", value: JSON.parse(body) }] });
      });
      trip.push(performance.now() - t0);
    }
    worker.terminate();
    return { post: med(post), trip: med(trip) };
  })()`)) as { post: number; trip: number };

  const base = baseline.post + baseline.trip;
  const ratio = full / base;
  const fmt = (n: number) => n.toFixed(3);
  process.stdout.write(
    [
      "browser path (Chromium, loopback server, SQLite)",
      `  full path per guest call:      ${fmt(full)} ms (shared.list, ${SEQUENTIAL} sequential calls, timed in the guest)`,
      `  baseline: POST same JSON:      ${fmt(baseline.post)} ms + worker round trip ${fmt(baseline.trip)} ms = ${fmt(base)} ms`,
      `  ratio full / baseline:         ${ratio.toFixed(2)} (target <= 1.25: ${ratio <= 1.25 ? "met" : "NOT met"})`,
      `  ${CONCURRENT} concurrent calls:          ${requests} HTTP request(s) (target 1: ${requests === 1 ? "met" : "NOT met"})`,
      `  wall ${many} ms / one call ${one} ms = ${(many / Math.max(one, 1)).toFixed(2)} (target <= 3: ${many / Math.max(one, 1) <= 3 ? "met" : "NOT met"})`,
      `  cold action start (first action after load): ${cold.wall.toFixed(0)} ms wall, ${cold.inside} ms inside the worker`,
      `  warm action start (median of ${warm.length}): ${median(warm.map((w) => w.wall)).toFixed(0)} ms wall, ${median(warm.map((w) => w.inside))} ms inside the worker`,
    ].join("\n"),
  );
  process.stdout.write("\n");
} finally {
  await context.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
}
