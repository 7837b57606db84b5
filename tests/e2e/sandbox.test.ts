import { describe, expect, it } from "vitest";
import { E2E_TRANSPORT, holdRunStart, openApp } from "./browser.ts";
import { finished, result, runAction } from "./panel.ts";

describe("actions in the page's Web Worker", () => {
  it("times out a runaway action, stays responsive, and runs the next action", async () => {
    await using app = await openApp({ actionTimeoutMs: 2_000 });
    const { page } = app;
    await runAction(page, "while (true) {}");
    expect(await finished(page)).toContain("timeout");
    await runAction(page, "export default 6 * 7;");
    expect(await finished(page)).toContain("42");
  });

  it("cancels a long action from the panel, and the next action runs", async () => {
    await using app = await openApp();
    const { page } = app;
    await runAction(page, "let n = 0; while (true) { n++; }");
    await page.getByRole("button", { name: "Cancel" }).click();
    expect(await finished(page)).toContain("cancelled");
    await runAction(page, 'export default "after cancel";');
    expect(await finished(page)).toContain("after cancel");
  });

  it("a Cancel pressed while the action is still starting cancels it before it runs", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    // Hold the run's start on the network until Cancel has been pressed.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const unhold = await holdRunStart(page, held);
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";\nawait workflows.create("never made");`,
    );
    await page.getByRole("button", { name: "Cancel" }).click();
    release();
    const text = await finished(page);
    expect(text).toContain("cancelled");
    expect(text).toContain("before it started");
    expect(await app.server.app.store.sql("SELECT count(*) AS n FROM workflows").get()).toEqual({ n: 0 });
    await unhold();
    await runAction(page, 'export default "next";');
    expect(await finished(page)).toContain("next");
  });

  it("runs the action while its run opens: calls wait for the run, and a run that cannot open stops the action", async () => {
    await using app = await openApp();
    const { page } = app;
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    // The held start is sent on naming a session that is not this person's: the server refuses it.
    const unhold = await holdRunStart(page, held, (text) =>
      text.replace(/"sessionId":"ses_[0-9a-f]+"/, '"sessionId":"ses_00000000000000000000000000000000"'),
    );
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";\nawait workflows.create("never made");\nexport default "made";`,
    );
    release();
    const text = await finished(page);
    expect(text).toContain("could not start");
    expect(text).not.toContain('made"');
    expect(await app.server.app.store.sql("SELECT count(*) AS n FROM workflows").get()).toEqual({ n: 0 });
    await unhold();
    // A start that is only slow: the action's call waits for its run, then runs.
    let later: () => void = () => {};
    const slow = new Promise<void>((resolve) => (later = resolve));
    const unslow = await holdRunStart(page, slow);
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";\nconst made = await workflows.create("made once");\nexport default made.name;`,
    );
    setTimeout(later, 300);
    expect(await finished(page)).toContain("made once");
    expect(await app.server.app.store.sql("SELECT count(*) AS n FROM workflows").get()).toEqual({ n: 1 });
    await unslow();
  });

  it("shows the result of an action that made no calls while its run still opens; the next run opens once it ended", async () => {
    await using app = await openApp();
    const { page } = app;
    const rows = async () =>
      (await app.server.app.store.sql("SELECT id, status, started_at, ended_at FROM runs").all()) as {
        id: string;
        status: string;
        started_at: number;
        ended_at: number | null;
      }[];
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const unhold = await holdRunStart(page, held);
    const before = new Set((await rows()).map((row) => row.id));
    const added = async () => (await rows()).filter((row) => !before.has(row.id));
    await runAction(page, "export default 6 * 7;");
    // Its run's start is still held: the result needed nothing of it.
    expect(await finished(page)).toContain("42");
    expect(await added()).toEqual([]);
    // The next action (one that makes calls) is run before the first run has opened: its run opens
    // only after the first one ended, so the server never holds both open at once.
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";\nconst { workflows: list } = await workflows.list({ limit: 1 });\nexport default list.length;`,
    );
    release();
    const text = await finished(page);
    await unhold();
    expect(text).toContain("ok");
    expect(text).not.toContain("could not start");
    // Besides these two, the page's editor opened a run of its own when the page loaded (held too).
    await expect.poll(async () => (await added()).filter((row) => row.status === "ended").length).toBe(2);
    const [first, second] = (await added())
      .filter((row) => row.status === "ended")
      .sort((a, b) => a.started_at - b.started_at);
    expect(first?.ended_at).not.toBeNull();
    expect(second?.started_at).toBeGreaterThanOrEqual(first?.ended_at ?? Number.POSITIVE_INFINITY);
  });

  it("refuses an undeclared import before running, naming the module", async () => {
    await using app = await openApp();
    const { page } = app;
    await runAction(
      page,
      `import { list } from "@nodetool-ai/sandbox-nodetool/workflow";\nconsole.log("ran");\nexport default list;`,
    );
    const text = await finished(page);
    expect(text).toContain("import_refused");
    expect(text).toContain("@nodetool-ai/sandbox-nodetool/workflow");
    expect(text).toContain("line 1");
    expect(text).not.toContain("ran");
    await app.server.app.audit.flush();
    expect(await app.server.app.store.sql("SELECT count(*) AS n FROM audit WHERE actor = 'agent'").get()).toEqual({
      n: 0,
    });
  });

  it.runIf(E2E_TRANSPORT === "websocket")(
    "sends the calls of one tick as one socket message, each its own run.invoke, and settles them all",
    async () => {
      await using app = await openApp();
      const { page } = app;
      const frames: string[] = [];
      // The page's socket opened before this listener: reload so the listener sees it from the start.
      page.on("websocket", (socket) =>
        socket.on("framesent", ({ payload }) => {
          if (typeof payload === "string" && payload.includes('"limit":1}')) frames.push(payload);
        }),
      );
      await page.reload();
      await runAction(
        page,
        `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const lists = await Promise.all(Array.from({ length: 20 }, () => workflows.list({ limit: 1 })));
export default lists.length;`,
      );
      expect(await finished(page)).toContain("20");
      expect(frames).toHaveLength(1);
      const sent = JSON.parse(frames[0] ?? "[]") as { params: { path: string; input: { callId: string } } }[];
      expect(sent.map((m) => m.params.path)).toEqual(Array(20).fill("run.invoke"));
      expect(new Set(sent.map((m) => m.params.input.callId)).size).toBe(20);
    },
  );

  it.runIf(E2E_TRANSPORT === "http")(
    "sends the calls of one tick as one HTTP request and streams their results",
    async () => {
      await using app = await openApp({ holdMs: 300 });
      const { page } = app;
      const posts: { url: string; body: string }[] = [];
      page.on("request", (request) => {
        // Only the action's own calls (the editor's list of workflows also uses run.invoke).
        const body = request.postData() ?? "";
        if (request.method() === "POST" && request.url().includes("/trpc/run.invoke") && body.includes('"limit":1}')) {
          posts.push({ url: request.url(), body });
        }
      });
      await runAction(
        page,
        `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const lists = await Promise.all(Array.from({ length: 20 }, () => workflows.list({ limit: 1 })));
export default lists.length;`,
      );
      expect(await finished(page)).toContain("20");
      expect(posts, posts.map((p) => p.url.slice(0, 200)).join("\n")).toHaveLength(1);
      // One procedure carrying the twenty calls, each with its own callId.
      expect(posts[0]?.url.split("/trpc/")[1]?.split("?")[0]).toBe("run.invokeMany");
      const sent = JSON.parse(posts[0]?.body ?? "{}") as Record<string, { calls: { callId: string }[] }>;
      expect(new Set(sent[0]?.calls.map((c) => c.callId)).size).toBe(20);
    },
  );

  it("serves the worker script with a CSP that forbids network access: a fetch from the worker fails", async () => {
    await using app = await openApp();
    const { page } = app;
    await runAction(page, "export default 1;");
    await finished(page);
    const worker = page.workers().find((w) => w.url().includes("worker-entry-browser"));
    expect(worker, "the sandbox worker is running").toBeDefined();
    const outcome = await worker?.evaluate(async () => {
      try {
        const response = await fetch("/health");
        return `fetched ${response.status}`;
      } catch (err) {
        return `refused: ${(err as Error).name}`;
      }
    });
    expect(outcome).toMatch(/^refused/);
    const head = await page.evaluate(
      async (url) => (await fetch(url)).headers.get("content-security-policy"),
      worker?.url() ?? "",
    );
    expect(head).toContain("connect-src 'none'");
  });

  it("shows result values, logs and call outcomes, and errors with line and column", async () => {
    await using app = await openApp();
    const { page } = app;
    await runAction(page, 'console.log("one");\nconsole.warn("two");\nconst x = null;\nx.boom();');
    const text = await finished(page);
    expect(text).toMatch(/action_failed at line 4, column \d+/);
    expect(text).toContain("one");
    expect(await result(page).getByRole("alert").count()).toBe(1);
  });
});
