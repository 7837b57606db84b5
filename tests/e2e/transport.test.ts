/**
 * The page's data plane in Chromium: one WebSocket per page that survives being cut in the middle of
 * an action (every call answered, none run twice), and the HTTP fallback, shown as such, when the
 * server refuses the upgrade.
 */
import { describe, expect, it } from "vitest";
import { E2E_TRANSPORT, openApp } from "./browser.ts";
import { dialog, finished, runAction } from "./panel.ts";

describe("the page's connection to the server", () => {
  it.runIf(E2E_TRANSPORT === "websocket")(
    "completes an action of 50 calls across a socket cut while one waits for approval; each call runs once",
    async () => {
      await using app = await openApp();
      const { page, server } = app;
      const sockets: string[] = [];
      page.on("websocket", (socket) => sockets.push(socket.url()));
      const posts: string[] = [];
      page.on("request", (request) => {
        if (request.method() === "POST" && request.url().includes("/trpc")) posts.push(request.url());
      });
      await page.reload();
      await page.getByLabel("Mode", { exact: true }).selectOption("default");
      await runAction(
        page,
        `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const made = workflows.create({ name: "across the cut", _message: "one write among reads" });
const seen = [];
for (let i = 0; i < 25; i++) seen.push((await workflows.list({ limit: 1 })).count);
const name = (await made).name;
for (let i = 0; i < 24; i++) seen.push((await workflows.list({ limit: 1 })).count);
export default { made: name, reads: seen.length };`,
      );
      await expect
        .poll(
          async () => await server.app.store.sql("SELECT count(*) AS n FROM approvals WHERE status = 'pending'").get(),
        )
        .toEqual({ n: 1 });
      // The server drops the page's socket (no close frame) while the write waits for the person.
      expect(server.sockets.closeFor({ userId: "local" }, "cut", true)).toBeGreaterThan(0);
      await dialog(page).getByRole("button", { name: "Allow once" }).click();
      const text = await finished(page);
      expect(text).toContain('"made": "across the cut"');
      expect(text).toContain('"reads": 49');
      expect(sockets.length).toBeGreaterThanOrEqual(2);
      // Every call went over the socket, none over HTTP.
      expect(posts).toEqual([]);
      await server.app.audit.flush();
      const audited = await server.app.store
        .sql(
          "SELECT capability, count(*) AS n FROM audit WHERE actor = 'agent' GROUP BY capability ORDER BY capability",
        )
        .all();
      expect(audited).toEqual([
        { capability: "create_workflow", n: 1 },
        { capability: "list_workflows", n: 49 },
      ]);
      expect(
        await server.app.store.sql("SELECT count(*) AS n FROM workflows WHERE name = 'across the cut'").get(),
      ).toEqual({
        n: 1,
      });
    },
  );

  it("falls back to HTTP when the server refuses the upgrade, says so, and works", async () => {
    await using app = await openApp({ webSockets: false });
    const { page } = app;
    await page.getByRole("status").filter({ hasText: "Connected over HTTP" }).waitFor();
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
await workflows.create("over http");
export default (await workflows.list()).count;`,
    );
    expect(await finished(page)).toContain("1");
  });
});
