/**
 * Playwright fixtures: Debian's Chromium (headless, no network beyond loopback) in a fresh profile, and
 * a signed-in page on a real server serving the built app.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import type { ServerConfig } from "../../server-bridge/config.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * The page's transport under test: the WebSocket (default), or the HTTP fallback with the server
 * refusing every upgrade (`E2E_TRANSPORT=http`; `npm test` runs the e2e suite both ways).
 */
export const E2E_TRANSPORT: "websocket" | "http" = process.env.E2E_TRANSPORT === "http" ? "http" : "websocket";
export const WEB_DIR = join(import.meta.dirname, "..", "..", "dist", "web");

/** Debian's Chromium, headless, in a fresh profile, with nothing reaching beyond loopback (and `extraArgs`). */
export function launchChromium(profile: string, extraArgs: readonly string[] = []): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}

export interface BrowserFixture {
  server: TestServer;
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors seen so far (a test may assert there were none). */
  problems: string[];
  newPage(): Promise<Page>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Over HTTP (E2E_TRANSPORT=http) the server refuses the page's socket and the page falls back, as it
 * should; Chromium logs the refused upgrade itself, which is no problem of the page's.
 */
function refusedUpgrade(text: string): boolean {
  return E2E_TRANSPORT === "http" && /^WebSocket connection to '\S+\/trpc' failed: .*response code: 404/.test(text);
}

export async function openApp(overrides: Partial<ServerConfig> = {}): Promise<BrowserFixture> {
  const server = await startTestServer({ webDir: WEB_DIR, webSockets: E2E_TRANSPORT === "websocket", ...overrides });
  const profile = mkdtempSync(join(tmpdir(), "nt-chromium-"));
  const context = await launchChromium(profile);
  const problems: string[] = [];
  const newPage = async () => {
    const page = await context.newPage();
    page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
    page.on("console", (msg) => {
      if (msg.type() === "error" && !refusedUpgrade(msg.text())) problems.push(`console: ${msg.text()}`);
    });
    return page;
  };
  const page = context.pages()[0] ?? (await newPage());
  if (!context.pages().includes(page)) await newPage();
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  await page.goto(`${server.url}/?token=${server.token}`);
  return {
    server,
    context,
    page,
    problems,
    newPage,
    async [Symbol.asyncDispose]() {
      await context.close().catch(() => {});
      await server[Symbol.asyncDispose]();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Holds the page's `run.start` calls on the network until `until` settles (over the page's socket by
 * proxying it, over HTTP by routing the request), and passes them on through `rewrite`; the page is
 * reloaded so its socket is the proxied one. Returns what stops the holding.
 */
export async function holdRunStart(
  page: Page,
  until: Promise<void>,
  rewrite: (text: string) => string = (text) => text,
): Promise<() => Promise<void>> {
  if (E2E_TRANSPORT === "http") {
    await page.route("**/trpc/run.start**", async (route) => {
      await until;
      const body = route.request().postData();
      await route.continue(body === null ? {} : { postData: rewrite(body) });
    });
    return () => page.unroute("**/trpc/run.start**");
  }
  let holding = true;
  await page.routeWebSocket(/\/trpc/, (socket) => {
    const server = socket.connectToServer();
    socket.onMessage(async (message) => {
      if (!holding || typeof message !== "string" || !message.includes('"run.start"')) {
        server.send(message);
        return;
      }
      // Calls made together go as one array: only the run.start ones wait.
      const calls: unknown[] = [JSON.parse(message)].flat();
      const starts = (call: unknown) => JSON.stringify(call).includes('"run.start"');
      for (const call of calls.filter((c) => !starts(c))) server.send(JSON.stringify(call));
      await until;
      for (const call of calls.filter(starts)) server.send(rewrite(JSON.stringify(call)));
    });
    server.onMessage((message) => socket.send(message));
  });
  await page.reload();
  return async () => {
    holding = false;
  };
}

/**
 * Holds the page's IndexedDB store (idb-keyval's, or the database `name`) with a transaction that never
 * ends, as a slow disk would: the page's writes wait behind it until the page goes.
 */
export async function holdIndexedDb(page: Page, name = "keyval-store"): Promise<void> {
  await page.evaluate(
    (database) =>
      new Promise<void>((resolve, reject) => {
        const opened = indexedDB.open(database);
        opened.onerror = () => reject(opened.error);
        opened.onsuccess = () => {
          const store = opened.result.transaction("keyval", "readwrite").objectStore("keyval");
          const busy = () => {
            store.count().onsuccess = busy;
          };
          busy();
          resolve();
        };
      }),
    name,
  );
}

/**
 * Waits (as long as the test may) until the bar of a file going up shows some of it sent: a slowed link
 * makes it last, but how soon it starts depends on the machine.
 */
export async function uploadStarted(page: Page, fileName: string): Promise<void> {
  await page.waitForFunction(
    (label) => {
      const bar = document.querySelector(`progress[aria-label="${CSS.escape(label)}"]`);
      return bar instanceof HTMLProgressElement && bar.value > 0;
    },
    `Uploading ${fileName}`,
    { timeout: 0 },
  );
}
