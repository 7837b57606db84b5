/**
 * The README's "Embed it" section, run as written: its `widget add` command (the real CLI on the
 * server's store), its host server (`host.mjs`, a real process) and its host page (`host.html`), in
 * Chromium with third-party cookies blocked. Only the addresses change: the app's (8787) and the
 * host's port (3000) are this run's.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collect } from "../support/cli.ts";
import { startTestServer } from "../support/server.ts";
import { WEB_DIR } from "./browser.ts";
import { launchBlockingThirdPartyCookies } from "./widget-host.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const FENCE = "```";

function section(): { sh: string; js: string; html: string } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const text = readme.slice(readme.indexOf("## Embed it"), readme.indexOf("\n## ", readme.indexOf("## Embed it") + 1));
  const block = (lang: string) => {
    const found = new RegExp(`${FENCE}${lang}\\n([\\s\\S]*?)${FENCE}`).exec(text)?.[1];
    if (found === undefined) throw new Error(`the Embed it section has no ${lang} block`);
    return found;
  };
  return { sh: block("sh"), js: block("js"), html: block("html") };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

describe("the README's Embed it section", () => {
  it("works as written: widget add, the host server minting a token, the ten-line host page", async () => {
    await using server = await startTestServer({ webDir: WEB_DIR });
    const port = await freePort();
    const { sh, js, html } = section();
    const local = (text: string) =>
      text.replaceAll("http://127.0.0.1:8787", server.url).replaceAll("3000", String(port));
    expect(html.trim().split("\n")).toHaveLength(10);

    const command = local(sh).trim().split(/\s+/);
    expect(command.slice(0, 4)).toEqual(["node", "--import", "tsx", "server-bridge/main.ts"]);
    const added = await collect(
      spawn(process.execPath, command.slice(1), { cwd: ROOT, env: { ...process.env, DATA_DIR: server.dataDir } }),
    );
    expect(added.status).toBe(0);
    const { mint_key: mintKey } = JSON.parse(added.stdout) as { mint_key: string };

    const dir = mkdtempSync(join(tmpdir(), "nt-host-"));
    writeFileSync(join(dir, "host.mjs"), local(js));
    writeFileSync(join(dir, "host.html"), local(html));
    const host = spawn(process.execPath, ["host.mjs"], { cwd: dir, env: { ...process.env, WIDGET_MINT_KEY: mintKey } });
    const exited = collect(host);
    const profile = mkdtempSync(join(tmpdir(), "nt-chromium-"));
    const context = await launchBlockingThirdPartyCookies(profile);
    try {
      const page = await context.newPage();
      const logged: unknown[] = [];
      page.on("console", (message) => {
        void message
          .args()[0]
          ?.jsonValue()
          .then((value: unknown) => logged.push(value));
      });
      // The host server may take a moment to listen.
      await expect
        .poll(
          () =>
            page.goto(`http://localhost:${port}/`).then(
              (res) => res?.status(),
              () => undefined,
            ),
          { timeout: 20_000 },
        )
        .toBe(200);
      await expect
        .poll(() => logged.find((value) => (value as { ok?: boolean }).ok !== undefined), { timeout: 30_000 })
        .toMatchObject({
          ok: true,
          result: 42,
        });
      // The page logs each value as it reads it from the console, so the event may land after the result.
      await expect
        .poll(() => logged.some((value) => (value as { type?: string }).type === "run_ended"), { timeout: 30_000 })
        .toBe(true);
      await page.frameLocator("iframe").getByRole("button", { name: "Run", exact: true }).waitFor();
    } finally {
      await context.close().catch(() => {});
      host.kill();
      await exited;
      rmSync(profile, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
