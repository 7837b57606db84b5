import { describe, expect, it } from "vitest";
import { untilSettled, WORKFLOWS } from "../support/server.ts";
import { openApp } from "./browser.ts";
import { dialog, finished, runAction } from "./panel.ts";

const CREATE = (name: string) => `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const w = await workflows.create({ name: ${JSON.stringify(name)}, _message: "I need a workflow" });
export default w.name;`;

const count = async (app: Awaited<ReturnType<typeof openApp>>) =>
  ((await app.server.app.store.sql("SELECT count(*) AS n FROM workflows").get()) as { n: number }).n;

describe("approvals in the agent panel", () => {
  it("asks in default mode: allow once, deny, allow for session (that name only), plan blocks, auto runs", async () => {
    await using app = await openApp({ holdMs: 300 });
    const { page } = app;

    await runAction(page, CREATE("first"));
    const ask = dialog(page);
    await ask.waitFor();
    expect(await ask.textContent()).toContain("create_workflow");
    expect(await ask.textContent()).toContain("write");
    expect(await ask.getByText("The agent's own words").isVisible()).toBe(true);
    // Held past the server's hold time (300 ms): the page re-sends and the call still completes.
    await page.waitForTimeout(900);
    await ask.getByRole("button", { name: "Allow once" }).click();
    expect(await finished(page)).toContain('"first"');
    expect(await count(app)).toBe(1);

    await runAction(page, CREATE("second"));
    await dialog(page).getByRole("button", { name: "Deny" }).click();
    expect(await finished(page)).toContain("permission_denied");
    expect(await count(app)).toBe(1);

    await runAction(page, CREATE("third"));
    await dialog(page).getByRole("button", { name: "Allow for session" }).click();
    expect(await finished(page)).toContain('"third"');
    await page.getByRole("region", { name: "Allowed for this session" }).getByText("create_workflow").waitFor();

    // The next create runs without a dialog; a delete (another write) still asks.
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const w = await workflows.create("fourth");
await workflows.delete(w.id);
export default "done";`,
    );
    await dialog(page).waitFor();
    expect(await dialog(page).textContent()).toContain("delete_workflow");
    expect(await count(app)).toBe(3);
    await dialog(page).getByRole("button", { name: "Allow once" }).click();
    expect(await finished(page)).toContain('"done"');

    await page.getByLabel("Mode", { exact: true }).selectOption("plan");
    await runAction(page, CREATE("planned"));
    expect(await finished(page)).toContain("blocked_in_plan_mode");

    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await runAction(page, CREATE("automatic"));
    expect(await finished(page)).toContain('"automatic"');
    expect(await dialog(page).count()).toBe(0);

    // The allow-set entry can be revoked from the page.
    await page.getByRole("button", { name: "Revoke create_workflow" }).click();
    await expect
      .poll(async () =>
        app.server.app.sessions.allowed(
          (await app.server.app.store.sql("SELECT id FROM sessions").get())
            ? ((await app.server.app.store.sql("SELECT id FROM sessions").get()) as { id: string }).id
            : "",
        ),
      )
      .toEqual([]);
    expect(app.problems).toEqual([]);
  });

  it("renders hostile argument text inert, with invisible characters made visible", async () => {
    await using app = await openApp();
    const { page } = app;
    const hostile = '<img src=x onerror="window.__pwned=1"><b>bold</b>\u202Egnp.exe\u200B';
    await runAction(page, CREATE(hostile));
    const ask = dialog(page);
    await ask.waitFor();
    const text = (await ask.textContent()) ?? "";
    expect(text).toContain("<img src=x onerror=");
    expect(text).toContain("[U+202E]");
    expect(text).toContain("[U+200B]");
    expect(await ask.locator("img, b").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await ask.getByRole("button", { name: "Deny" }).click();
    expect(await finished(page)).toContain("permission_denied");
  });

  it("queues several approvals, one dialog at a time; the tab's title counts them while they wait", async () => {
    await using app = await openApp();
    const { page } = app;
    await expect.poll(() => page.title()).toBe("nodetool sandbox");
    await runAction(
      page,
      `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
import { memory } from "@nodetool-ai/sandbox-nodetool/memory";
const [a, b] = await Promise.allSettled([workflows.create("q1"), memory.save("remember q2")]);
export default [a.status, b.status];`,
    );
    await dialog(page).waitFor();
    expect(await dialog(page).count()).toBe(1);
    expect(await dialog(page).textContent()).toMatch(/1 more waiting/);
    // A person in another tab sees that the page waits on them.
    await expect.poll(() => page.title()).toBe("(2) Approval needed · nodetool sandbox");
    await dialog(page).getByRole("button", { name: "Allow once" }).click();
    await expect.poll(() => dialog(page).textContent()).not.toMatch(/more waiting/);
    await expect.poll(() => page.title()).toBe("(1) Approval needed · nodetool sandbox");
    await dialog(page).getByRole("button", { name: "Allow once" }).click();
    expect(await finished(page)).toContain('"fulfilled"');
    await expect.poll(() => page.title()).toBe("nodetool sandbox");
  });

  it("shows an approval left open across a reload again, and it never runs unanswered", async () => {
    await using app = await openApp();
    const { page } = app;
    await runAction(page, "export default 41 + 1;");
    expect(await finished(page)).toContain("42");
    await runAction(page, CREATE("across reload"));
    await dialog(page).waitFor();
    await page.reload();
    await dialog(page).waitFor();
    expect(await dialog(page).textContent()).toContain("across reload");
    expect(await count(app)).toBe(0);
    await dialog(page).getByRole("button", { name: "Deny" }).click();
    await expect
      .poll(async () => await app.server.app.store.sql("SELECT status FROM approvals").all())
      .toEqual([{ status: "deny" }]);
    expect(await count(app)).toBe(0);
    // History survived the reload.
    await page.getByRole("tab", { name: "History" }).click();
    expect(await page.getByRole("region", { name: "History" }).getByRole("listitem").first().textContent()).toContain(
      "41 + 1",
    );
  });

  it("asks a script's approval in the signed-in page, saying a script asks, and the script's call then runs", async () => {
    await using app = await openApp({ holdMs: 300 });
    const { page, server } = app;
    await runAction(page, "export default 1;");
    expect(await finished(page)).toContain("1");
    // A script with the user's token, in default mode: its write waits for the person.
    const { sessionId } = await server.script.session.create.mutate({ mode: "default" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const input = { runId, module: WORKFLOWS, export: "create", args: ["by a script"], callId: "s1" };
    expect(await server.script.run.invoke.mutate(input)).toEqual({ pending: true });
    const ask = dialog(page);
    await ask.getByText("A script asks, not this page").waitFor();
    expect(await ask.textContent()).toContain("create_workflow");
    expect(await ask.textContent()).toContain("by a script");
    expect(await ask.textContent()).toContain(runId);
    // Shown again after a reload, like the page's own.
    await page.reload();
    await dialog(page).getByText("A script asks, not this page").waitFor();
    expect(await count(app)).toBe(0);
    await dialog(page).getByRole("button", { name: "Allow once" }).click();
    await dialog(page).waitFor({ state: "detached" });
    expect(await untilSettled(() => server.script.run.invoke.mutate(input))).toMatchObject({
      ok: true,
      value: { name: "by a script" },
    });
    expect(await count(app)).toBe(1);
  });
});
