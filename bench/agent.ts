/**
 * The agent loop's own overhead per step, in Chromium, against a scripted OpenAI-compatible server
 * that answers at once (target: under 5 ms per step):
 *
 *   per step = (a request of K2 steps - a request of K1 steps) / (K2 - K1), timed in the page from the
 *              Send click to the answer shown (each step: one model turn with one tool call, and its
 *              trivial action in the page's sandbox);
 *   overhead = per step - a bare streamed fetch of the same reply to the same request (from the
 *              server's process, as the server makes it) - the same trivial action run alone (Action
 *              editor, click to result).
 *
 * Every figure is the median of several interleaved rounds after a warm-up. The CPU every process
 * spent per step (same difference of requests) is printed with the floor it sets on this machine's cores.
 *
 *   node --import tsx bench/agent.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { startApp } from "../server-bridge/app.ts";
import { buildWebIfStale } from "../server-bridge/build.ts";
import { configFromEnv } from "../server-bridge/config.ts";
import { launchChromium } from "../tests/e2e/browser.ts";
import { startFakeOpenAI } from "../tests/support/fake-models.ts";
import { cpuSecondsOf, hasProc } from "./cpu.ts";
import { action } from "./page-action.ts";

const ROUNDS = 15;
const K1 = 2;
const K2 = 10;
const WARMUP = 3;
const ACTION = "export default 1;";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const fake = await startFakeOpenAI();
const step = {
  tool_calls: [{ name: "execute_code", arguments: JSON.stringify({ risk: "low", description: "step", code: ACTION }) }],
};
const script = (steps: number) => {
  for (let i = 0; i < steps; i++) fake.script.push(step);
  fake.script.push({ text: "done." });
};

/**
 * What a step costs the machine, and the floor that sets on its cores (the step's time is CPU-bound
 * there): on the step, and so on the overhead, which is the step less two figures measured apart.
 */
function cpuFloor(cpuMs: number, fetchMs: number, actionMs: number): string[] {
  const cores = availableParallelism();
  const step = cpuMs / cores;
  return [
    `  CPU per step, every process (server, provider, harness, Chromium): ${cpuMs.toFixed(1)} ms on ${cores} cores,`,
    `    so no step can take less than ${step.toFixed(1)} ms here  (same rounds, 10 ms ticks),`,
    `    nor the overhead less than ${(step - fetchMs - actionMs).toFixed(1)} ms  (that floor less the fetch and the action)`,
  ];
}

/** Times `go()` in the page: from the region's aria-busy going true until it goes false again. */
async function timed(page: Page, regionName: string, go: () => Promise<void>): Promise<number> {
  const region = await page.getByRole("region", { name: regionName }).elementHandle();
  const measuring = page.evaluate(
    (element) =>
      new Promise<number>((resolve) => {
        let started = 0;
        const observer = new MutationObserver(() => {
          const busy = element?.getAttribute("aria-busy") === "true";
          if (busy && !started) started = performance.now();
          else if (!busy && started) {
            observer.disconnect();
            resolve(performance.now() - started);
          }
        });
        observer.observe(element as Element, { attributes: true, attributeFilter: ["aria-busy"] });
      }),
    region,
  );
  await go();
  return measuring;
}

/**
 * CPU seconds used so far by this process (the server, the scripted provider and the harness) and by
 * every Chromium process (undefined without /proc): what the steps cost the machine.
 */
function machineCpuSeconds(): number | undefined {
  return hasProc ? cpuSecondsOf(["chrom"], [process.pid]) : undefined;
}

async function request(page: Page, steps: number): Promise<number> {
  await page.getByRole("tab", { name: "Agent" }).click();
  script(steps);
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill(`run ${steps} steps`);
  return timed(page, "Conversation", () => box.press("Enter"));
}

/** The same action from the Action editor, timed in the page from the Run click to the shown result. */
async function actionAlone(page: Page): Promise<number> {
  await page.getByRole("tab", { name: "Action" }).click();
  return (await action(page, ACTION)).wallMs;
}

/**
 * The same reply as a step's, streamed straight from the scripted server and read to its end, for the
 * same request the server last sent (the provider's reading of the conversation is not the loop's).
 */
async function bareFetch(): Promise<number> {
  const body = JSON.stringify(fake.requests.at(-1));
  fake.script.push(step);
  const started = performance.now();
  const response = await fetch(`${fake.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  await response.text();
  return performance.now() - started;
}

const dataDir = mkdtempSync(join(tmpdir(), "nt-bench-agent-"));
const profile = mkdtempSync(join(tmpdir(), "nt-bench-chromium-"));
const webDir = await buildWebIfStale();
const server = await startApp(
  configFromEnv(
    {},
    {
      port: 0,
      dataDir,
      webDir,
      agent: { openaiBaseUrl: fake.url, stepTokens: 1000, threadTokens: 1e9, dailyTokens: 1e9, stepCap: 50 },
    },
  ),
  () => {},
);
const context = await launchChromium(profile);
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.url}/?token=${server.app.credentials.adminToken}`);
  await page.getByRole("combobox", { name: "Model" }).waitFor();
  await page.getByRole("combobox", { name: "Mode", exact: true }).selectOption("auto");
  for (let i = 0; i < WARMUP; i++) {
    await request(page, K1);
    await actionAlone(page);
    await bareFetch();
  }
  const rounds: { perStep: number; fetch: number; action: number }[] = [];
  const cpuPerStep: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const cpu0 = machineCpuSeconds();
    const short = await request(page, K1);
    const cpu1 = machineCpuSeconds();
    const action = await actionAlone(page);
    const cpu2 = machineCpuSeconds();
    const long = await request(page, K2);
    const cpu3 = machineCpuSeconds();
    if (cpu0 !== undefined && cpu1 !== undefined && cpu2 !== undefined && cpu3 !== undefined) {
      cpuPerStep.push((1000 * (cpu3 - cpu2 - (cpu1 - cpu0))) / (K2 - K1));
    }
    const fetches: number[] = [];
    for (let i = 0; i < 10; i++) fetches.push(await bareFetch());
    rounds.push({ perStep: (long - short) / (K2 - K1), fetch: median(fetches), action });
  }
  const perStep = median(rounds.map((r) => r.perStep));
  const fetchMs = median(rounds.map((r) => r.fetch));
  const actionMs = median(rounds.map((r) => r.action));
  const overhead = median(rounds.map((r) => r.perStep - r.fetch - r.action));
  process.stdout.write(
    [
      `agent loop (Chromium, scripted OpenAI-compatible server answering at once; medians of ${ROUNDS} rounds)`,
      `  per step (one model turn + its action): ${perStep.toFixed(2)} ms  ((${K2} - ${K1} steps) / ${K2 - K1}, page-timed)`,
      `  bare streamed fetch of the same reply:  ${fetchMs.toFixed(2)} ms  (from the server's process)`,
      `  the same action alone (Action editor):  ${actionMs.toFixed(2)} ms  (click to result)`,
      `  loop overhead per step: ${overhead.toFixed(2)} ms (target < 5: ${overhead < 5 ? "met" : "NOT met"})`,
      ...(cpuPerStep.length ? cpuFloor(median(cpuPerStep), fetchMs, actionMs) : []),
    ].join("\n"),
  );
  process.stdout.write("\n");
} finally {
  await context.close();
  await server.close();
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
}
