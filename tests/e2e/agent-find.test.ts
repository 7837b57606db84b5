/**
 * Finding a conversation in the agent panel: `Find` searches every conversation of the person (not only
 * the hundred the list holds) by its title or what was said in it; Enter opens the first found, a click
 * any; Escape gives focus back to `Find`.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../shared/agent/messages.ts";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { accessibilityProblems } from "./a11y.ts";
import { agent, conversation } from "./agent-page.ts";
import { openApp } from "./browser.ts";

const said = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }] });

describe("finding a conversation", () => {
  it("finds any conversation by words in it, older than the list holds too, and opens it by keyboard", async () => {
    await using fake = await startFakeOpenAI({ script: [] });
    await using app = await openApp({ agent: agent(fake) });
    const { page, server } = app;
    const [me] = await server.app.credentials.listUsers();
    if (!me) throw new Error("no user");
    const threads = server.app.agent.threads;
    // The oldest conversation, then a hundred newer ones: the list holds the newest hundred.
    const ancient = await threads.create(me.userId, "Tax return");
    await threads.append(ancient.id, [said("Which receipts do I need for the March filing?")]);
    await server.app.store.sql("UPDATE agent_threads SET updated_at = 1 WHERE id = ?").run(ancient.id);
    for (let i = 0; i < 100; i++) {
      const thread = await threads.create(me.userId, `Chat ${i}`);
      await threads.append(thread.id, [said(i === 7 ? "Plan the march to the sea" : `Just chat number ${i}`)]);
    }
    await page.reload();
    const list = page.getByRole("combobox", { name: "Conversations" });
    await expect.poll(() => list.locator("option").count()).toBe(101);
    expect(await list.locator("option", { hasText: "Tax return" }).count()).toBe(0);

    const find = page.getByRole("button", { name: "Find a conversation" });
    await find.click();
    const dialog = page.getByRole("dialog", { name: "Find a conversation" });
    const field = dialog.getByRole("searchbox", { name: "Search conversations" });
    await expect.poll(() => field.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.type("march");
    await dialog.getByText("2 conversations hold “march”.").waitFor();
    const found = dialog.getByRole("list", { name: "Conversations found" }).getByRole("button");
    // Newest first, each with the words around where it matched, the typed words marked.
    expect(await found.allInnerTexts()).toEqual([
      expect.stringMatching(/^Chat 7 .*\nPlan the march to the sea$/s),
      expect.stringMatching(/^Tax return .*\nWhich receipts do I need for the March filing\?$/s),
    ]);
    expect(await found.nth(1).locator("mark").allInnerTexts()).toEqual(["March"]);
    expect(await accessibilityProblems(page)).toEqual([]);
    // Down goes from the field to the conversations found, Up back.
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent ?? "");
    await page.keyboard.press("ArrowDown");
    await expect.poll(focusedText).toMatch(/^Chat 7 /);
    await page.keyboard.press("ArrowDown");
    await expect.poll(focusedText).toMatch(/^Tax return /);
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => field.evaluate((input) => input === document.activeElement)).toBe(true);

    // Escape closes it, focus back on Find; a search with nothing found says so.
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => find.evaluate((button) => button === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await page.keyboard.type("zebra");
    await dialog.getByText("No conversation holds “zebra”.").waitFor();

    // The older conversation, by a word of its title: Enter opens it, listed now, and the cursor is in Message.
    await field.fill("tax");
    await dialog.getByText("One conversation holds “tax”.").waitFor();
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "detached" });
    await conversation(page).getByText("Which receipts do I need for the March filing?").waitFor();
    expect(await list.locator("option:checked").textContent()).toBe("Tax return");
    const message = page.getByRole("textbox", { name: "Message" });
    await expect.poll(() => message.evaluate((box) => box === document.activeElement)).toBe(true);
    expect(app.problems).toEqual([]);
  });
});
