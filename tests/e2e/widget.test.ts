import type { Frame, Page } from "playwright-core";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { addWidget, exchange, mint } from "../support/widgets.ts";
import { accessibilityProblems } from "./a11y.ts";
import { E2E_TRANSPORT } from "./browser.ts";
import { dialog, finished, result, runAction } from "./panel.ts";
import { type HostSite, openWidgetBrowser, startHostSite, widgetFrame } from "./widget-host.ts";

/** What the host page (widget-host.ts) keeps on its window. */
interface HostWindow {
  ready: Promise<string>;
  events: { type: string; status?: string; capability?: string }[];
  graph: { nodes: { id: string; type: string }[] };
  widget: {
    run(source: string): Promise<{ ok: boolean; result?: unknown; error?: { code: string; message: string } }>;
    stats(): { ignored: { source: number; origin: number; malformed: number } };
  };
}

const hostWindow = (page: Page) => page.evaluateHandle(() => window as unknown as HostWindow);

/** How the widget's `ready` settled (the host page's module sets it once its token has arrived). */
async function ready(page: Page): Promise<string> {
  await page.waitForFunction(() => (window as unknown as Partial<HostWindow>).ready !== undefined);
  return (await hostWindow(page)).evaluate((w) => w.ready);
}

/** How many host messages the widget has ignored (its page shows the count on its root element). */
async function ignoredByWidget(frame: Frame): Promise<number> {
  return Number((await frame.evaluate(() => document.documentElement.dataset.ignoredMessages)) ?? 0);
}

type Server = Awaited<ReturnType<typeof openWidgetBrowser>>["server"];

const pendingApprovals = async (server: Server) =>
  ((await server.app.store.sql("SELECT id FROM approvals WHERE status = 'pending'").all()) as { id: string }[]).map(
    (row) => row.id,
  );

const runCount = async (server: Server) =>
  ((await server.app.store.sql("SELECT count(*) AS n FROM runs").get()) as { n: number }).n;

const RUN_HOST_GRAPH = `import { ui } from "@nodetool-ai/sandbox-nodetool/ui";
const job = await ui.runWorkflow();
export default job.status;`;

const CREATE_DEMO = `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const made = await workflows.create({ name: "Demo", _message: "the workflow you asked for" });
export default made.name;`;

const ADD_NODE = `import { ui } from "@nodetool-ai/sandbox-nodetool/ui";
await ui.addNode({ node_type: "constant.number", node_id: "n1" });
export default "added";`;

async function withHost<T>(
  fixture: Awaited<ReturnType<typeof openWidgetBrowser>>,
  options: Parameters<typeof addWidget>[1],
  body: (host: HostSite) => Promise<T>,
): Promise<T> {
  const host = await startHostSite(fixture.server, { id: "", mintKey: "" });
  try {
    host.widget = await addWidget(fixture.server, { origins: [host.origin], ...options });
    return await body(host);
  } finally {
    await host.close();
  }
}

describe("the widget embedded in a page of another site (third-party cookies blocked)", () => {
  it("runs an action from its own UI and from widget.run; ui_add_node reaches the host's editor; approvals are answered only inside it", async () => {
    await using fixture = await openWidgetBrowser();
    const { server } = fixture;
    await withHost(fixture, {}, async (host) => {
      const page = await fixture.newPage();
      // Keeps the host's end of each MessageChannel the page makes (the SDK's channel to its iframe),
      // so the test can speak over it as a hostile host script could.
      await page.addInitScript(`{
        const Native = MessageChannel;
        window.channelPorts = [];
        window.MessageChannel = class extends Native {
          constructor() { super(); window.channelPorts.push(this.port1); }
        };
      }`);
      await page.goto(`${host.origin}/`);
      expect(await ready(page)).toBe("ready");
      const frame = await widgetFrame(page);
      // The browser really blocks third-party cookies here: the framed page has no cookie access.
      expect(await frame.evaluate(() => document.hasStorageAccess())).toBe(false);
      // The widget offers the modes up to its highest (by default, "default"), each saying what it does.
      expect(await frame.getByLabel("Mode", { exact: true }).locator("option").allTextContents()).toEqual([
        "plan: reads only",
        "default: asks before changes",
      ]);

      await runAction(frame, "export default 6 * 7");
      expect(await finished(frame)).toContain("42");
      const w = await hostWindow(page);
      expect(await w.evaluate((win) => win.widget.run("export default 6 * 7"))).toMatchObject({ ok: true, result: 42 });

      // An approval: asked in the widget's dialog; the host hears only that it is pending.
      const running = w.evaluate((win, source) => win.widget.run(source), ADD_NODE);
      const ask = dialog(frame);
      await ask.waitFor();
      expect(await ask.textContent()).toContain("ui_add_node");
      // A host run that takes a while is said in the widget, and no longer once it has ended.
      const hostRunNote = frame.getByText("The host page is running an action here");
      await hostRunNote.waitFor();
      await expect
        .poll(() => w.evaluate((win) => win.events.filter((e) => e.type === "approval").map((e) => e.status)))
        .toEqual(["pending"]);

      // The host tries to answer it, to change the mode, to read the credential: none of it is a message,
      // over the channel the SDK opened as much as to the iframe's window (no longer heard once it opened).
      const before = await ignoredByWidget(frame);
      const ports = await page.evaluate(
        ({ app, approvalId }) => {
          const target = document.querySelector("iframe")?.contentWindow;
          const { channelPorts } = window as unknown as { channelPorts: MessagePort[] };
          for (const message of [
            { type: "approval_response", approval_id: approvalId, answer: "allow" },
            { type: "respond", approvalId, answer: { kind: "allow" } },
            { type: "set_mode", mode: "auto" },
            { type: "credential" },
          ]) {
            target?.postMessage(message, app);
            for (const port of channelPorts) port.postMessage(message);
          }
          return channelPorts.length;
        },
        { app: server.url, approvalId: "any" },
      );
      expect(ports).toBe(1);
      await expect.poll(() => ignoredByWidget(frame)).toBe(before + 8);
      expect(await ask.isVisible()).toBe(true);

      // Nor can it call the approval procedures itself: from its page the browser does not even send
      // the request (no CORS), and sent from anywhere its token is not a credential, and a credential
      // (which it never holds) is refused for the person's acts unless from the widget's own page.
      const pending = await pendingApprovals(server);
      expect(pending).toHaveLength(1);
      const approvalId = pending[0] as string;
      const fresh = (await mint(server, host.widget.mintKey)).body.token as string;
      const respondBody = JSON.stringify({ approvalId, answer: { kind: "allow" } });
      const fromPage = await page.evaluate(
        async ({ app, body, token }) => {
          const attempt = (init: RequestInit) =>
            fetch(`${app}/trpc/approvals.respond`, { method: "POST", ...init, body }).then(
              (res) => String(res.status),
              () => "blocked",
            );
          return [
            await attempt({ headers: { "content-type": "application/json", authorization: `Bearer ${token}` } }),
            await attempt({ headers: { "content-type": "application/json" }, credentials: "include" }),
          ];
        },
        { app: server.url, body: respondBody, token: fresh },
      );
      expect(fromPage).toEqual(["blocked", "blocked"]);
      const asHost = { origin: host.origin, "sec-fetch-site": "cross-site", "content-type": "application/json" };
      const withToken = await fetch(`${server.url}/trpc/approvals.respond`, {
        method: "POST",
        headers: { ...asHost, authorization: `Bearer ${fresh}` },
        body: respondBody,
      });
      expect(withToken.status).toBe(401);
      const credential = (await exchange(server, host.widget.id, fresh)).body.credential as string;
      const withCredential = await fetch(`${server.url}/trpc/approvals.respond`, {
        method: "POST",
        headers: { ...asHost, authorization: `Bearer ${credential}` },
        body: respondBody,
      });
      expect(withCredential.status).toBe(403);
      expect(await pendingApprovals(server)).toEqual([approvalId]);
      expect(await ask.isVisible()).toBe(true);

      // Covered by the host (an overlay to click through), the dialog's buttons stay asleep: this
      // Chromium has IntersectionObserver v2, which sees the cover.
      expect(await frame.evaluate(() => "isVisible" in IntersectionObserverEntry.prototype)).toBe(true);
      await page.evaluate(() => {
        const cover = document.createElement("div");
        cover.id = "cover";
        Object.assign(cover.style, { position: "fixed", inset: "0", background: "rgba(255,255,255,0.01)" });
        document.body.append(cover);
      });
      await page.waitForTimeout(1500);
      expect(await ask.getByRole("button", { name: "Allow once" }).isDisabled()).toBe(true);
      await page.evaluate(() => document.getElementById("cover")?.remove());
      await ask.getByRole("button", { name: "Allow once" }).click();

      expect(await running).toMatchObject({ ok: true, result: "added" });
      await hostRunNote.waitFor({ state: "hidden" });
      await page.locator('#editor li[data-id="n1"]').waitFor();
      expect(await w.evaluate((win) => win.graph.nodes.map((n) => [n.id, n.type]))).toEqual([
        ["n1", "constant.number"],
      ]);
      expect(await w.evaluate((win) => win.events.filter((e) => e.type === "approval").map((e) => e.status))).toEqual([
        "pending",
        "allow",
      ]);

      // ui.runWorkflow runs the graph in the host's editor (asked of the host), and the job's progress
      // reaches the host's onEvent.
      const job = w.evaluate((win, source) => win.widget.run(source), RUN_HOST_GRAPH);
      await dialog(frame).getByRole("button", { name: "Allow once" }).click();
      expect(await job).toMatchObject({ ok: true, result: "completed" });
      await expect.poll(() => w.evaluate((win) => win.events.some((e) => e.type === "job_progress"))).toBe(true);
    });
    expect(fixture.problems).toEqual([]);
  });

  it("holds the agent conversation: a request, its action's approval in the widget's dialog, the answer", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        {
          text: "I will create it.",
          tool_calls: [
            {
              name: "execute_code",
              arguments: JSON.stringify({
                risk: "low",
                description: "an action",
                title: "Create Demo",
                code: CREATE_DEMO,
              }),
            },
          ],
        },
        { text: "Created the workflow Demo." },
      ],
    });
    await using fixture = await openWidgetBrowser({
      agent: {
        openaiBaseUrl: fake.url,
        openaiApiKey: "sk-widget-e2e",
        stepTokens: 1000,
        threadTokens: 1e6,
        dailyTokens: 1e6,
        stepCap: 20,
      },
    });
    const { server } = fixture;
    await withHost(fixture, {}, async (host) => {
      const page = await fixture.newPage();
      await page.goto(`${host.origin}/`);
      expect(await ready(page)).toBe("ready");
      const frame = await widgetFrame(page);
      // With a provider configured the conversation is the first tab.
      const box = frame.getByRole("textbox", { name: "Message" });
      await box.fill("make a workflow called Demo");
      await box.press("Enter");
      await dialog(frame).waitFor();
      // The widget's approval dialog and, after, its conversation: nothing an accessibility scan finds.
      expect(await accessibilityProblems(frame)).toEqual([]);
      await dialog(frame).getByRole("button", { name: "Allow once" }).click();
      await frame.getByRole("region", { name: "Conversation" }).getByText("Created the workflow Demo.").waitFor();
      expect(await accessibilityProblems(frame)).toEqual([]);
      // The iframe may write the clipboard (the SDK delegates it): Copy works inside another site's page.
      for (const origin of [host.origin, new URL(server.url).origin]) {
        await fixture.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
      }
      await frame.getByRole("button", { name: "Copy the answer" }).click();
      await frame.getByRole("status").filter({ hasText: "Copied." }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("Created the workflow Demo.");
      // Made as the widget's own user, not the owner.
      const { store } = server.app;
      const made = await store.sql("SELECT user_id FROM workflows WHERE name = 'Demo'").all();
      const widgetUser = (await store
        .sql("SELECT user_id, owner_id FROM widgets WHERE id = ?")
        .get(host.widget.id)) as {
        user_id: string;
        owner_id: string;
      };
      expect(made).toEqual([{ user_id: widgetUser.user_id }]);
      expect(widgetUser.user_id).not.toBe(widgetUser.owner_id);
    });
    expect(fixture.problems).toEqual([]);
  });

  it("ignores a forged message from a second window; is refused framing by a page of another origin", async () => {
    await using fixture = await openWidgetBrowser();
    const { server } = fixture;
    await withHost(fixture, {}, async (host) => {
      const page = await fixture.newPage();
      await page.goto(`${host.origin}/`);
      expect(await ready(page)).toBe("ready");
      const frame = await widgetFrame(page);

      // A second window of the very same (allowed) origin reaches the iframe and asks it to run.
      const before = await ignoredByWidget(frame);
      const runs = await runCount(server);
      const popup = page.waitForEvent("popup");
      await page.evaluate(() => window.open("/blank", "second"));
      const second = await popup;
      await second.waitForLoadState();
      await second.evaluate(
        ({ app }) => {
          const target = window.opener?.frames[0] as Window | undefined;
          target?.postMessage({ type: "run", id: "forged", source: "export default 'forged'" }, app);
        },
        { app: server.url },
      );
      await expect.poll(() => ignoredByWidget(frame)).toBe(before + 1);
      expect(await runCount(server)).toBe(runs);
      // The host's SDK checks the same way: a "result" from the second window (not its iframe) is ignored.
      const w = await hostWindow(page);
      const hostIgnored = await w.evaluate((win) => win.widget.stats().ignored.source);
      await second.evaluate(() => window.opener?.postMessage({ type: "connected" }, "*"));
      await expect.poll(() => w.evaluate((win) => win.widget.stats().ignored.source)).toBe(hostIgnored + 1);

      // A `connect` without the channel's port (an SDK older than the server) is told so, not left waiting.
      const told = await page.evaluate(
        ({ app, widget }) =>
          new Promise<unknown>((resolve) => {
            const raw = document.createElement("iframe");
            raw.src = `${app}/embed?w=${encodeURIComponent(widget)}`;
            addEventListener("message", (event) => {
              if (event.source !== raw.contentWindow) return;
              if (event.data?.type === "ready") raw.contentWindow?.postMessage({ type: "connect", token: "t" }, app);
              if (event.data?.type === "failed") resolve(event.data.error);
            });
            document.body.append(raw);
          }),
        { app: server.url, widget: host.widget.id },
      );
      expect(told).toMatchObject({ code: "invalid_call", message: expect.stringContaining("/embed/sdk.js") });

      // The same host page on an origin the widget does not list is refused framing.
      const stranger = await startHostSite(server, host.widget);
      try {
        const other = await fixture.newPage();
        const refused = new Promise<string>((resolve) =>
          other.on("console", (message) => {
            if (/frame-ancestors/.test(message.text())) resolve(message.text());
          }),
        );
        await other.goto(`${stranger.origin.replace("localhost", "127.0.0.1")}/`);
        expect(await refused).toMatch(/violates .*frame-ancestors.* blocked/);
        const framed = await widgetFrame(other);
        expect(await framed.locator("#root").count()).toBe(0);
      } finally {
        await stranger.close();
      }
    });
  });

  it("stops a native operation that never checks the interrupt with the watchdog, without shared memory", async () => {
    await using fixture = await openWidgetBrowser({ actionTimeoutMs: 2_000 });
    await withHost(fixture, {}, async (host) => {
      const page = await fixture.newPage();
      await page.goto(`${host.origin}/`);
      expect(await ready(page)).toBe("ready");
      const frame = await widgetFrame(page);
      // Framed by a page that is not cross-origin isolated: no SharedArrayBuffer for the slice clock.
      expect(await frame.evaluate(() => [crossOriginIsolated, typeof SharedArrayBuffer])).toEqual([false, "undefined"]);
      const w = await hostWindow(page);
      const overrun = await w.evaluate((win) =>
        win.widget.run("export default Array.prototype.indexOf.call({ length: 2 ** 40 }, 1);"),
      );
      expect(overrun.error?.code).toBe("timeout");
      expect(await w.evaluate((win) => win.widget.run("export default 6 * 7"))).toMatchObject({ ok: true, result: 42 });
    });
  });

  it("shows an image asset of its own in a result (fetched with its credential: an img sends no header)", async () => {
    await using fixture = await openWidgetBrowser();
    await withHost(fixture, {}, async (host) => {
      const page = await fixture.newPage();
      await page.goto(`${host.origin}/`);
      expect(await ready(page)).toBe("ready");
      const frame = await widgetFrame(page);
      const png = await sharp({ create: { width: 40, height: 20, channels: 3, background: "#0a0" } })
        .png()
        .toBuffer();
      await runAction(
        frame,
        `import { assets } from "@nodetool-ai/sandbox-nodetool/assets";
const saved = await assets.save({ name: "green.png", content: new Uint8Array([${[...png].join(",")}]) });
export default { picture: saved.asset };`,
      );
      await dialog(frame).getByRole("button", { name: "Allow once" }).click();
      await finished(frame);
      const img = result(frame).locator("img.asset-preview");
      await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(40);
      expect(await img.getAttribute("src")).toMatch(/^blob:/);
    });
    expect(fixture.problems).toEqual([]);
  });

  it("shows an exchanged or expired token's refusal in the widget; a revoked widget mints nothing", async () => {
    await using fixture = await openWidgetBrowser();
    const { server } = fixture;
    await withHost(fixture, {}, async (host) => {
      const spent = (await mint(server, host.widget.mintKey)).body.token as string;
      expect((await exchange(server, host.widget.id, spent)).status).toBe(200);
      host.token = async () => ({ status: 200, body: JSON.stringify({ token: spent }) });
      const page = await fixture.newPage();
      await page.goto(`${host.origin}/`);
      expect(await ready(page)).toMatch(/^failed: unauthorized: .*already used/);
      const frame = await widgetFrame(page);
      expect(await frame.getByRole("alert").textContent()).toMatch(/could not open \(unauthorized\).*already used/);

      const late = (await mint(server, host.widget.mintKey)).body.token as string;
      await server.app.store
        .sql("UPDATE widget_tokens SET expires_at = ? WHERE exchanged_at IS NULL")
        .run(Date.now() - 1);
      host.token = async () => ({ status: 200, body: JSON.stringify({ token: late }) });
      await page.reload();
      expect(await ready(page)).toMatch(/^failed: unauthorized: .*expired/);
      expect(await (await widgetFrame(page)).getByRole("alert").textContent()).toMatch(/expired/);

      await server.script.widgets.revoke.mutate({ widgetId: host.widget.id });
      const minted = await mint(server, host.widget.mintKey);
      expect(minted.status).toBe(401);
      expect(minted.body.error?.code).toBe("unauthorized");
      expect(minted.body.token).toBeUndefined();
    });
  });

  it("says so when its widget is revoked while open, and every run after fails as unauthorized", async () => {
    await using fixture = await openWidgetBrowser();
    await withHost(fixture, {}, async (host) => {
      const page = await fixture.newPage();
      await page.goto(`${host.origin}/`);
      expect(await ready(page)).toBe("ready");
      const w = await hostWindow(page);
      expect(await w.evaluate((win) => win.widget.run("export default 6 * 7"))).toMatchObject({ ok: true, result: 42 });

      await fixture.server.script.widgets.revoke.mutate({ widgetId: host.widget.id });
      // Over the socket the server ends it at once. Over the HTTP fallback there is no socket to end:
      // its next call is refused (401), here a run that makes one.
      if (E2E_TRANSPORT === "http") await w.evaluate((win, source) => win.widget.run(source), CREATE_DEMO);
      const frame = await widgetFrame(page);
      const alert = frame.getByRole("alert").filter({ hasText: "The widget was closed (unauthorized)" });
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/(revoked|not valid).*Reload the host page/);
      // Not "Reconnecting…" for ever, and the host's runs fail with the reason.
      expect(await frame.getByText("Reconnecting to the server").count()).toBe(0);
      expect(await w.evaluate((win) => win.widget.run("export default 1"))).toMatchObject({
        ok: false,
        error: { code: "unauthorized", message: expect.stringMatching(/revoked|not valid/) },
      });
    });
  });
});
