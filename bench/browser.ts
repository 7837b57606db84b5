/**
 * The browser path, measured in Debian's Chromium against the real server (DESIGN.md section 8):
 *
 * - full path of one sequential guest call (guest -> worker -> page -> WebSocket -> invoke -> the
 *   `shared.list` read capability) divided by one bare HTTP POST from a page (target: at most 0.35),
 *   and divided by a bare WebSocket echo round trip plus a bare Comlink round trip (target: at most
 *   1.5), with the floor: a no-op tRPC procedure over the page's socket, by the same baseline;
 * - warm action start, click to the shown result (target: at most 8 ms);
 * - 100 concurrent guest calls: wall divided by one call's (target: at most 3), and the WebSocket
 *   messages each way;
 * - the same figures on the HTTP fallback (a second server refusing upgrades), for comparison.
 *
 * How each figure is taken, so that the ratios compare like with like:
 * - full path and baselines are both timed in a page (performance.now), as the mean cost per call of a
 *   sequential loop. The full path is the difference between an action making N2 sequential calls and
 *   one making N1, each timed from the Run click to the shown result, divided by N2 - N1 (everything
 *   but the calls cancels out). The guest's own figure (Date.now around its loop) is printed beside it.
 * - the bare baselines run in a page of a bare server started here (a POST answered at once, and a
 *   `ws` echo), so they are what the browser and loopback cost with no application behind them;
 * - concurrency: both walls are timed in the guest: 100 calls under one Promise.all, and one call as
 *   the mean of a sequential loop;
 * - the call path is warmed up first (WARMUP_ACTIONS of each action), so the figures are the steady
 *   state of a long-lived page; every figure is taken in each of several rounds, interleaved, and the
 *   medians over rounds are printed.
 *
 *   node --import tsx bench/browser.ts
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { WebSocketServer } from "ws";
import { type AppHandle, startApp } from "../server-bridge/app.ts";
import { buildWebIfStale } from "../server-bridge/build.ts";
import { configFromEnv } from "../server-bridge/config.ts";
import { launchChromium } from "../tests/e2e/browser.ts";
import { action } from "./page-action.ts";

const ROUNDS = 5;
/** Sequential calls in the two actions whose difference is the full path. */
const N1 = 20;
const N2 = 120;
/** Sequential requests / round trips per baseline sample. */
const BASELINE_N = 100;
const CONCURRENT = 100;
/** Actions run on the call path before anything is timed (see the warm-up below). */
const WARMUP_ACTIONS = 20;
const SHARED = "@nodetool-ai/sandbox-nodetool/shared";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const sequential = (n: number) => `import { shared } from "${SHARED}";
await shared.list();
const t0 = Date.now();
for (let i = 0; i < ${n}; i++) await shared.list();
export default (Date.now() - t0) / ${n};`;

const concurrent = `import { shared } from "${SHARED}";
await shared.list();
const t0 = Date.now();
await Promise.all(Array.from({ length: ${CONCURRENT} }, () => shared.list()));
export default Date.now() - t0;`;

/** A bare server for the baselines: a POST answered at once, a WebSocket that echoes, an empty page. */
async function bareServer() {
  const http = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": req.method === "GET" ? "text/html" : "application/json" });
      res.end(req.method === "GET" ? "<!doctype html><title>bare</title>" : '{"ok":true}');
    });
  });
  const wss = new WebSocketServer({ server: http });
  wss.on("connection", (socket) => socket.on("message", (data, binary) => socket.send(data, { binary })));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const address = http.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    url,
    close: () => new Promise<void>((resolve) => wss.close(() => http.close(() => resolve()))),
  };
}

const comlink = readFileSync(createRequire(import.meta.url).resolve("comlink/dist/umd/comlink.min.js"), "utf8");
const body = JSON.stringify({ runId: "run_x", module: SHARED, export: "list", args: [], callId: "c" });

/** In the bare page: a POST, a WebSocket echo and a Comlink round trip, each the mean of a loop. */
function bareRound(page: Page) {
  return page.evaluate(`(async () => {
    const body = ${JSON.stringify(body)}, n = ${BASELINE_N};
    let t0 = performance.now();
    for (let i = 0; i < n; i++) {
      await (await fetch("/post", { method: "POST", headers: { "content-type": "application/json" }, body })).text();
    }
    const post = (performance.now() - t0) / n;
    const socket = new WebSocket(location.origin.replace("http", "ws"));
    await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
    const echo = () => new Promise((resolve) => { socket.addEventListener("message", resolve, { once: true }); socket.send(body); });
    await echo();
    t0 = performance.now();
    for (let i = 0; i < n; i++) await echo();
    const ws = (performance.now() - t0) / n;
    socket.close();
    const src = ${JSON.stringify(comlink)} + "\\nComlink.expose({ calls: (batch) => batch });";
    const worker = new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" })));
    const remote = Comlink.wrap(worker);
    const payload = { type: "calls", run_id: "run_x", calls: [JSON.parse(body)] };
    await remote.calls(payload);
    t0 = performance.now();
    for (let i = 0; i < n; i++) await remote.calls(payload);
    const trip = (performance.now() - t0) / n;
    worker.terminate();
    return { post, ws, trip };
  })()`) as Promise<{ post: number; ws: number; trip: number }>;
}

/** In the app's page: the no-op tRPC procedure (`config.get`) over a socket of its own, the page's cookie. */
function noopOverSocket(page: Page) {
  return page.evaluate(`(async () => {
    const n = ${BASELINE_N};
    const socket = new WebSocket(location.origin.replace("http", "ws") + "/trpc");
    await new Promise((resolve, reject) => { socket.addEventListener("open", resolve, { once: true }); socket.addEventListener("error", reject, { once: true }); });
    let id = 0;
    const call = () => new Promise((resolve) => {
      const mine = ++id;
      const onMessage = (event) => {
        if (event.data === "PING" || event.data === "PONG" || JSON.parse(event.data).id !== mine) return;
        socket.removeEventListener("message", onMessage);
        resolve();
      };
      socket.addEventListener("message", onMessage);
      socket.send(JSON.stringify({ id: mine, method: "query", params: { path: "config.get" } }));
    });
    await call();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await call();
    const noop = (performance.now() - t0) / n;
    // ${CONCURRENT} no-op calls in one message (as the page's link sends a batch), until the last answer.
    const many = [];
    for (let round = 0; round < 5; round++) {
      const first = id + 1;
      id += ${CONCURRENT};
      const t1 = performance.now();
      await new Promise((resolve) => {
        let left = ${CONCURRENT};
        const onMessage = (event) => {
          if (event.data === "PING" || event.data === "PONG") return;
          const answered = JSON.parse(event.data).id;
          if (answered >= first && answered <= id && --left === 0) {
            socket.removeEventListener("message", onMessage);
            resolve();
          }
        };
        socket.addEventListener("message", onMessage);
        socket.send(JSON.stringify(Array.from({ length: ${CONCURRENT} }, (_, k) => ({ id: first + k, method: "query", params: { path: "config.get" } }))));
      });
      many.push(performance.now() - t1);
    }
    socket.close();
    many.sort((a, b) => a - b);
    return { noop, many: many[2] };
  })()`) as Promise<{ noop: number; many: number }>;
}

/**
 * A signed-in app page on its own server; `webSockets: false` makes it the HTTP fallback. Each page is
 * served under its own host name: cookies are per host, not per port, so two logins on one host would
 * overwrite each other.
 */
async function appPage(context: BrowserContext, webSockets: boolean, host: string) {
  const dataDir = mkdtempSync(join(tmpdir(), "nt-bench-"));
  const server: AppHandle = await startApp(configFromEnv({}, { port: 0, dataDir, webDir, webSockets }), () => {});
  const page = await context.newPage();
  const frames = { sent: 0, received: 0 };
  page.on("websocket", (socket) => {
    socket.on("framesent", ({ payload }) => {
      if (typeof payload === "string" && payload.includes(SHARED)) frames.sent++;
    });
    socket.on("framereceived", ({ payload }) => {
      if (typeof payload === "string" && payload.includes('"result"')) frames.received++;
    });
  });
  let requests = 0;
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().includes("/trpc/run.invoke") && r.postData()?.includes(SHARED)) requests++;
  });
  await page.goto(`${server.url.replace("127.0.0.1", host)}/?token=${server.app.credentials.adminToken}`);
  await page.getByRole("button", { name: "Run", exact: true }).waitFor();
  return {
    page,
    frames,
    requests: () => requests,
    async close() {
      await page.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type App = Awaited<ReturnType<typeof appPage>>;

async function warmStart(page: Page) {
  const { wallMs } = await action(page, "export default 1;");
  const text = (await page.getByRole("region", { name: "Result" }).textContent()) ?? "";
  return { wall: wallMs, inside: Number(text.match(/ok in (\d+) ms/)?.[1] ?? Number.NaN) };
}

/** One round on an app page: the sequential pair, the concurrent action and its messages, a warm start. */
async function appRound(app: App) {
  const short = await action(app.page, sequential(N1));
  const long = await action(app.page, sequential(N2));
  const sentBefore = app.frames.sent;
  const receivedBefore = app.frames.received;
  const requestsBefore = app.requests();
  const many = (await action(app.page, concurrent)).value as number;
  return {
    full: (long.wallMs - short.wallMs) / (N2 - N1),
    guest: long.value as number,
    many,
    // The warm-up call before the Promise.all is one of each.
    sent: app.frames.sent - sentBefore - 1,
    received: app.frames.received - receivedBefore,
    requests: app.requests() - requestsBefore - 1,
    start: (await warmStart(app.page)).wall,
  };
}

const webDir = await buildWebIfStale();
const profile = mkdtempSync(join(tmpdir(), "nt-bench-chromium-"));
const bare = await bareServer();
const context = await launchChromium(profile);
try {
  const basePage = await context.newPage();
  await basePage.goto(bare.url);
  await basePage.evaluate(comlink);
  const socketApp = await appPage(context, true, "127.0.0.1");
  const httpApp = await appPage(context, false, "localhost");
  const cold = await warmStart(socketApp.page);
  for (const app of [socketApp, httpApp]) {
    for (let i = 0; i < WARMUP_ACTIONS; i++) {
      await action(app.page, sequential(N1));
      await action(app.page, concurrent);
      await warmStart(app.page);
    }
  }

  const rounds: {
    base: Awaited<ReturnType<typeof bareRound>>;
    noop: { noop: number; many: number };
    socket: Awaited<ReturnType<typeof appRound>>;
    http: Awaited<ReturnType<typeof appRound>>;
  }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order within rounds, so a drift in machine load favours no side.
    const first = round % 2 === 0;
    const baseFirst = first ? await bareRound(basePage) : undefined;
    const socket = await appRound(socketApp);
    const noop = await noopOverSocket(socketApp.page);
    const http = await appRound(httpApp);
    const base = baseFirst ?? (await bareRound(basePage));
    rounds.push({ base, noop, socket, http });
  }
  await socketApp.close();
  await httpApp.close();

  const m = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
  const fmt = (n: number) => n.toFixed(3);
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
  const full = m((r) => r.socket.full);
  const byPost = m((r) => r.socket.full / r.base.post);
  const byWs = m((r) => r.socket.full / (r.base.ws + r.base.trip));
  const floor = m((r) => (r.noop.noop + r.base.trip) / (r.base.ws + r.base.trip));
  const manyRatio = m((r) => r.socket.many / r.socket.guest);
  const manyFloor = m((r) => r.noop.many / r.noop.noop);
  const start = m((r) => r.socket.start);
  const httpFull = m((r) => r.http.full);
  const httpRatio = m((r) => r.http.full / (r.base.post + r.base.trip));
  const httpMany = m((r) => r.http.many / r.http.guest);
  const counts = (pick: (r: (typeof rounds)[number]) => number) => [...new Set(rounds.map(pick))].join(", ");
  process.stdout.write(
    [
      `browser path (Chromium, loopback server, SQLite; medians of ${ROUNDS} interleaved rounds)`,
      `  full path per guest call (socket): ${fmt(full)} ms (shared.list; page-timed, (${N2} - ${N1} sequential calls) / ${N2 - N1}; the guest's clock says ${fmt(m((r) => r.socket.guest))} ms)`,
      `  bare baselines (page-timed means of ${BASELINE_N}): POST ${fmt(m((r) => r.base.post))} ms, WebSocket echo ${fmt(m((r) => r.base.ws))} ms, Comlink round trip ${fmt(m((r) => r.base.trip))} ms`,
      `  full / bare POST:                 ${byPost.toFixed(2)} (target <= 0.35: ${verdict(byPost <= 0.35)})`,
      `  full / (WS echo + Comlink):       ${byWs.toFixed(2)} (target <= 1.5: ${verdict(byWs <= 1.5)})`,
      `  floor: no-op tRPC procedure over the socket ${fmt(m((r) => r.noop.noop))} ms; (it + Comlink) / (WS echo + Comlink) = ${floor.toFixed(2)}${floor > 1.5 ? " (the floor alone misses 1.5)" : ""}`,
      `  warm action start, click to shown result: ${start.toFixed(1)} ms (target <= 8: ${verdict(start <= 8)}); cold (first action after load): ${cold.wall.toFixed(0)} ms`,
      `  ${CONCURRENT} concurrent calls: wall ${m((r) => r.socket.many)} ms / one call ${fmt(m((r) => r.socket.guest))} ms = ${manyRatio.toFixed(2)} (guest-timed; target <= 3: ${verdict(manyRatio <= 3)})`,
      `    WebSocket messages: ${counts((r) => r.socket.sent)} page -> server, ${counts((r) => r.socket.received)} server -> page`,
      `    floor: ${CONCURRENT} no-op tRPC procedures in one message, wall ${fmt(m((r) => r.noop.many))} ms / one no-op ${fmt(m((r) => r.noop.noop))} ms = ${manyFloor.toFixed(2)}${manyFloor > 3 ? " (the floor alone misses 3)" : ""}`,
      `  HTTP fallback: full path ${fmt(httpFull)} ms; / (POST + Comlink) = ${httpRatio.toFixed(2)}; ${CONCURRENT} concurrent: ${counts((r) => r.http.requests)} request(s), wall / one = ${httpMany.toFixed(2)}; warm start ${m((r) => r.http.start).toFixed(1)} ms`,
    ].join("\n"),
  );
  process.stdout.write("\n");
} finally {
  await context.close();
  await bare.close();
  rmSync(profile, { recursive: true, force: true });
}
