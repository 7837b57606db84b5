/**
 * A host site for the widget's browser tests: a tiny HTTP server of its own on another site
 * (`http://localhost:<port>` against the app on `http://127.0.0.1:<port>`), doing what the README's
 * "Embed it" section tells a host to do: its server mints a visitor's token with the mint key
 * (`GET /token` -> `POST /embed/token`, server to server) and its page imports the SDK from the app
 * and mounts the widget, with a toy editor of its own served as the `ui` namespace. Chromium runs with
 * third-party cookies blocked.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Frame, Page } from "playwright-core";
import type { ServerConfig } from "../../server-bridge/config.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { E2E_TRANSPORT, launchChromium, WEB_DIR } from "./browser.ts";

export interface HostSite {
  origin: string;
  /** The widget the page mounts, and whose mint key `GET /token` mints with. */
  widget: { id: string; mintKey: string };
  /** What `GET /token` answers: by default, a fresh token minted server to server (a test may replace it). */
  token(): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

/** The host's page: the SDK from the app, the widget mounted in #agent, a toy editor in #editor. */
function hostPage(app: string, widget: string, options: { ui: boolean }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Host</title></head>
<body>
<h1>A host page</h1>
<ul id="editor" aria-label="Host editor"></ul>
<div id="agent" style="width: 720px; height: 640px"></div>
<script type="module">
import { mountAgentWidget } from "${app}/embed/sdk.js";
window.events = [];
window.graph = { nodes: [], edges: [] };
const show = () => {
  document.getElementById("editor").replaceChildren(...window.graph.nodes.map((node) => {
    const item = document.createElement("li");
    item.dataset.id = node.id;
    item.textContent = node.id + ": " + node.type;
    return item;
  }));
};
const { token } = await (await fetch("/token")).json();
window.widget = mountAgentWidget(document.getElementById("agent"), {
  server: "${app}",
  widget: "${widget}",
  token,
  onEvent: (event) => window.events.push(event),
  ${options.ui ? "ui: { getGraph: () => window.graph, apply: (graph) => { window.graph = graph; show(); } }," : ""}
});
window.ready = window.widget.ready.then(() => "ready", (err) => "failed: " + err.message);
</script>
</body></html>`;
}

/**
 * Serves `/` (the host page) and `/token` (minted on this server with the widget's mint key). Pass
 * `ui: false` for a host without an editor of its own.
 */
export async function startHostSite(
  app: { url: string },
  widget: { id: string; mintKey: string },
  options: { ui?: boolean } = {},
): Promise<HostSite> {
  const site = {
    widget,
    async token() {
      const minted = await fetch(`${app.url}/embed/token`, {
        method: "POST",
        headers: { authorization: `Bearer ${site.widget.mintKey}`, "content-type": "application/json" },
        body: "{}",
      });
      return { status: minted.status, body: await minted.text() };
    },
  } as HostSite;
  const server: Server = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://host").pathname;
    if (path === "/token") {
      const { status, body } = await site.token();
      res.writeHead(status, { "content-type": "application/json" });
      res.end(body);
      return;
    }
    if (path === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(hostPage(app.url, site.widget.id, { ui: options.ui ?? true }));
      return;
    }
    res.writeHead(path === "/blank" ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>blank</title>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  site.origin = `http://localhost:${port}`;
  site.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site;
}

/** Chromium as in browser.ts, with third-party cookies blocked (the profile's setting and the flag). */
export async function launchBlockingThirdPartyCookies(profile: string): Promise<BrowserContext> {
  mkdirSync(join(profile, "Default"), { recursive: true });
  writeFileSync(
    join(profile, "Default", "Preferences"),
    JSON.stringify({ profile: { block_third_party_cookies: true, cookie_controls_mode: 1 } }),
  );
  return launchChromium(profile, ["--test-third-party-cookie-phaseout"]);
}

export interface WidgetFixture {
  server: TestServer;
  context: BrowserContext;
  problems: string[];
  newPage(): Promise<Page>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The app's server (serving the built page and the SDK) and a browser blocking third-party cookies. */
export async function openWidgetBrowser(overrides: Partial<ServerConfig> = {}): Promise<WidgetFixture> {
  const server = await startTestServer({ webDir: WEB_DIR, webSockets: E2E_TRANSPORT === "websocket", ...overrides });
  const profile = mkdtempSync(join(tmpdir(), "nt-chromium-"));
  const context = await launchBlockingThirdPartyCookies(profile);
  const problems: string[] = [];
  return {
    server,
    context,
    problems,
    async newPage() {
      const page = await context.newPage();
      page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
      return page;
    },
    async [Symbol.asyncDispose]() {
      await context.close().catch(() => {});
      await server[Symbol.asyncDispose]();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The widget's frame in a host page, once it has loaded. */
export async function widgetFrame(page: Page): Promise<Frame> {
  const iframe = await page.waitForSelector("iframe");
  const frame = await iframe.contentFrame();
  if (!frame) throw new Error("the widget's iframe has no frame");
  return frame;
}
