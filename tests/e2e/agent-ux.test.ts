/**
 * The agent panel as a first-time user meets it, in Chromium against the scripted model server: Delete
 * asks before a conversation goes (and Escape or Cancel keeps it), Rename works in place by keyboard,
 * New conversation puts the cursor
 * in the message box, a turn that ended early says why again after a reload, and a step that waited
 * for an approval shows its own run time with the wait stated apart, and a long conversation scrolls
 * inside the panel with the message box still in view.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { action, agent, conversation, conversationAction, send } from "./agent-page.ts";
import { holdIndexedDb, openApp } from "./browser.ts";
import { addNode, newWorkflow, select } from "./editor.ts";

/** The element that has focus: its tag and accessible name, or where it sits. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element) return "nothing";
    const label = element.closest("label")?.textContent?.trim().split("\n")[0];
    return `${element.tagName.toLowerCase()}:${element.closest("dialog") ? "in dialog:" : ""}${element.textContent?.trim() || label || ""}`;
  });

describe("the agent panel, for a first-time user", () => {
  it("asks before deleting a conversation, naming it; Escape and Cancel keep it, its Delete deletes it", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "Here is the first answer." }] });
    await using app = await openApp({ agent: agent(fake) });
    const { page, server } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "plan my week");
    await conversation(page).getByText("Here is the first answer.").waitFor();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });

    const more = page.getByRole("button", { name: "More conversation actions" });
    const confirm = page.getByRole("alertdialog", { name: "Delete this conversation?" });
    // Escape keeps the conversation, and gives focus back to the menu's button.
    await conversationAction(page, "Delete");
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain("“plan my week”");
    // Focus starts on Cancel (a stray Enter deletes nothing), as in the workflow's.
    expect(await focused(page)).toBe("button:in dialog:Cancel");
    await page.keyboard.press("Escape");
    await confirm.waitFor({ state: "detached" });
    await expect.poll(() => focused(page)).toBe("button:More ▾");
    await conversation(page).getByText("Here is the first answer.").waitFor();
    // Cancel keeps it too, and a reload still shows it.
    await conversationAction(page, "Delete");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached" });
    await page.reload();
    await conversation(page).getByText("Here is the first answer.").waitFor();
    expect(await server.app.store.sql("SELECT title FROM agent_threads").all()).toEqual([{ title: "plan my week" }]);

    // By the keyboard: ArrowUp on More opens its menu on Delete, Enter asks, Tab from Cancel to Delete,
    // Enter deletes.
    await more.focus();
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => focused(page)).toBe("button:Delete");
    await page.keyboard.press("Enter");
    await confirm.waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await confirm.waitFor({ state: "detached" });
    await conversation(page).getByText("Ask the agent to do something").waitFor();
    expect(await conversation(page).getByText("Here is the first answer.").count()).toBe(0);
    expect(await page.getByRole("option", { name: "plan my week" }).count()).toBe(0);
    expect(await server.app.store.sql("SELECT title FROM agent_threads").all()).toEqual([]);
    await page.reload();
    await conversation(page).getByText("Ask the agent to do something").waitFor();
    expect(await page.getByRole("option", { name: "plan my week" }).count()).toBe(0);
    expect(app.problems).toEqual([]);
  });
  it("renames a conversation in place: an empty title says why, Escape and Cancel keep the old one, focus returns to More", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "Noted." }] });
    await using app = await openApp({ agent: agent(fake) });
    const { page, server } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "plan my week");
    await conversation(page).getByText("Noted.").waitFor();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    const titles = () => server.app.store.sql("SELECT title FROM agent_threads").all();
    const field = page.getByRole("textbox", { name: "Title" });

    // Blank: refused on the page with the reason, the field stays for the person to fix.
    await conversationAction(page, "Rename");
    await field.fill("   ");
    await field.press("Enter");
    await page.getByRole("alert").filter({ hasText: "A conversation needs a title." }).waitFor();
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    // Escape keeps the old title; focus is back on More, so Enter opens its menu on Rename, and Enter
    // the field again.
    await page.keyboard.press("Escape");
    await field.waitFor({ state: "detached" });
    await expect.poll(() => focused(page)).toBe("button:More ▾");
    await page.keyboard.press("Enter");
    await expect.poll(() => focused(page)).toBe("button:Rename");
    await page.keyboard.press("Enter");
    await field.fill("A new title");
    await page.getByRole("button", { name: "Cancel" }).click();
    await field.waitFor({ state: "detached" });
    await expect.poll(() => focused(page)).toBe("button:More ▾");
    expect(await titles()).toEqual([{ title: "plan my week" }]);
    // Enter keeps the new title (trimmed), in the list and the store.
    await page.keyboard.press("Enter");
    await expect.poll(() => focused(page)).toBe("button:Rename");
    await page.keyboard.press("Enter");
    await field.fill("  Week plan  ");
    await field.press("Enter");
    await field.waitFor({ state: "detached" });
    await expect.poll(() => focused(page)).toBe("button:More ▾");
    await expect.poll(titles).toEqual([{ title: "Week plan" }]);
    await page.getByRole("combobox", { name: "Conversations" }).getByRole("option", { name: "Week plan" }).waitFor({
      state: "attached",
    });
    expect(app.problems).toEqual([]);
  });

  it("keeps the message being written across a reload, and gives back a request that never reached the conversation", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "First answer." }] });
    await using app = await openApp({ agent: agent(fake) });
    const { page, server } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "first request");
    await conversation(page).getByText("First answer.").waitFor();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    const box = page.getByRole("textbox", { name: "Message" });
    // A request that reached the conversation stays out of the box.
    expect(await box.inputValue()).toBe("");
    // Even when its write cannot finish before the page goes (the store held, as by a slow disk).
    await holdIndexedDb(page);
    await box.fill("half a thought");
    await page.reload();
    await conversation(page).getByText("First answer.").waitFor();
    await expect.poll(() => box.inputValue()).toBe("half a thought");

    // The conversation is deleted elsewhere (another tab): the request fails and comes back to the box.
    const [thread] = (await server.app.store.sql("SELECT id, user_id FROM agent_threads").all()) as {
      id: string;
      user_id: string;
    }[];
    if (!thread) throw new Error("no thread");
    await server.app.agent.threads.delete(thread.user_id, thread.id);
    await box.fill("second request");
    await box.press("Enter");
    await page.getByRole("alert").first().waitFor();
    await expect.poll(() => box.inputValue()).toBe("second request");
    expect(fake.requests).toHaveLength(1);
  });

  it("opens on the Agent tab with a provider, never showing the Action tab first", async () => {
    await using fake = await startFakeOpenAI({ script: [] });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    // Every tab that is ever shown chosen, recorded from the page's start.
    await page.addInitScript(() => {
      const seen = new Set<string>();
      Object.assign(window, { tabsShown: seen });
      new MutationObserver(() => {
        for (const tab of document.querySelectorAll('[role="tab"][aria-selected="true"]')) {
          seen.add(tab.textContent ?? "");
        }
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    await page.reload();
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    expect(await page.getByRole("tab", { name: "Agent" }).getAttribute("aria-selected")).toBe("true");
    expect(await page.evaluate(() => [...(window as unknown as { tabsShown: Set<string> }).tabsShown])).toEqual([
      "Agent",
    ]);
    // The tab list is reachable by keyboard from the start: the chosen tab takes Tab.
    expect(await page.getByRole("tab", { name: "Agent" }).getAttribute("tabindex")).toBe("0");
    expect(app.problems).toEqual([]);
  });

  it("puts the cursor in the message box after New conversation, so the person just types", async () => {
    await using fake = await startFakeOpenAI({
      script: [{ text: "Answer in the first conversation." }, { text: "Answer in the second conversation." }],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page, server } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "first request");
    await conversation(page).getByText("Answer in the first conversation.").waitFor();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });

    // From the keyboard alone: to New conversation, press it, type, Enter sends.
    const box = page.getByRole("textbox", { name: "Message" });
    await page.getByRole("button", { name: "New conversation" }).focus();
    await page.keyboard.press("Enter");
    await conversation(page).getByText("Ask the agent to do something").waitFor();
    expect(await focused(page)).toBe("textarea:Message");
    await page.keyboard.type("second request");
    expect(await box.inputValue()).toBe("second request");
    await page.keyboard.press("Enter");
    await conversation(page).getByText("Answer in the second conversation.").waitFor();
    expect(await conversation(page).getByText("Answer in the first conversation.").count()).toBe(0);
    const titles = await server.app.store.sql("SELECT title FROM agent_threads ORDER BY created_at").all();
    expect(titles).toEqual([{ title: "first request" }, { title: "second request" }]);
    expect(app.problems).toEqual([]);
  });

  it("offers suggestions in an empty conversation: one goes into the message box, to send or change; Up brings a request back", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "You have no workflows yet." }] });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    const suggestions = conversation(page).getByRole("list", { name: "Suggestions" });
    expect(await suggestions.getByRole("button").allTextContents()).toEqual([
      "What workflows do I have?",
      "Build a workflow that adds 2 and 40, then run it",
      "What can you do here?",
    ]);
    await suggestions.getByRole("button", { name: "What workflows do I have?" }).click();
    const box = page.getByRole("textbox", { name: "Message" });
    expect(await box.inputValue()).toBe("What workflows do I have?");
    expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
    // Nothing was sent until the person sends it.
    expect(fake.requests).toHaveLength(0);
    await page.keyboard.press("Enter");
    await conversation(page).getByText("You have no workflows yet.").waitFor();
    expect(await suggestions.count()).toBe(0);

    // Up in the empty box brings the last request back, the cursor at its end, to change and send;
    // in a box with text, Up is the box's own.
    await expect.poll(() => box.inputValue()).toBe("");
    await box.focus();
    await page.keyboard.press("ArrowUp");
    await expect.poll(() => box.inputValue()).toBe("What workflows do I have?");
    await expect.poll(() => box.evaluate((el) => (el as HTMLTextAreaElement).selectionStart)).toBe(25);
    await page.keyboard.type(" And jobs?");
    await page.keyboard.press("ArrowUp");
    expect(await box.inputValue()).toBe("What workflows do I have? And jobs?");
    expect(fake.requests).toHaveLength(1);
    expect(app.problems).toEqual([]);
  });
  it("says why a turn ended early again after a reload and after switching conversations", async () => {
    await using fake = await startFakeOpenAI({
      script: [{ error: { status: 401 } }, { tool_calls: [action("while (true) {}", { title: "Spin" })] }],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    // A provider failure: the server knows why.
    await send(page, "first request");
    const refused = conversation(page).getByText(/The provider refused the key/);
    await refused.waitFor();
    const failure = (await refused.textContent()) ?? "";
    expect(failure).toMatch(/^unauthorized: /);
    await page.reload();
    await conversation(page).getByText("first request").waitFor();
    await conversation(page).getByText(failure, { exact: true }).waitFor();
    // Stop mid-action: only the page knows why.
    await page.getByRole("button", { name: "New conversation" }).click();
    await send(page, "second request");
    await conversation(page).getByText("Running…").waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    const stopped = conversation(page).getByText("cancelled: Stopped by the user.", { exact: true });
    await stopped.waitFor();

    // A reload opens the newest conversation: it says why it stopped again, in the same words.
    await page.reload();
    await conversation(page).getByText("second request").waitFor();
    await stopped.waitFor();
    // Switching to the other conversation and back says each one's reason again.
    const threads = page.getByLabel("Conversations");
    await threads.selectOption({ label: "first request" });
    await conversation(page).getByText(failure, { exact: true }).waitFor();
    expect(await stopped.count()).toBe(0);
    await threads.selectOption({ label: "second request" });
    await stopped.waitFor();
    expect(await conversation(page).getByText(failure, { exact: true }).count()).toBe(0);
    expect(app.problems).toEqual([]);
  });
  it("shows a step's own run time, and its wait for an approval apart, live and after a reload", async () => {
    const CREATE = `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
export default (await workflows.create({ name: "Waited" })).name;`;
    await using fake = await startFakeOpenAI({
      script: [{ tool_calls: [action(CREATE, { title: "Create Waited" })] }, { text: "Made Waited." }],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "make Waited");
    const approval = page.getByRole("dialog");
    await approval.getByRole("button", { name: "Allow once" }).waitFor();
    // The person takes their time to answer.
    const WAIT_MS = 3000;
    await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
    await approval.getByRole("button", { name: "Allow once" }).click();
    await conversation(page).getByText("Made Waited.").waitFor();

    const check = async () => {
      const step = conversation(page).getByRole("article", { name: /Create Waited/ });
      const outcome = await step.getByText(/^ok in /).textContent();
      const shown = /^ok in (.+) · waited (.+) for approval$/.exec(outcome ?? "");
      expect(shown, `the step says: ${outcome}`).not.toBeNull();
      const [, own = "", waited = ""] = shown ?? [];
      expect(msOf(own)).toBeLessThan(WAIT_MS);
      expect(msOf(waited)).toBeGreaterThanOrEqual(WAIT_MS - 100);
      const call = await step.getByRole("list", { name: "Capability calls" }).textContent();
      const callShown = /^create_workflow: ok \((.+) · waited (.+) for approval\)$/.exec(call ?? "");
      expect(callShown, `the call says: ${call}`).not.toBeNull();
      expect(msOf(callShown?.[1] ?? "")).toBeLessThan(WAIT_MS);
      return outcome;
    };
    const live = await check();
    await page.reload();
    await conversation(page).getByText("Made Waited.").waitFor();
    expect(await check()).toBe(live);
    expect(app.problems).toEqual([]);
  });

  it("keeps the message box and Send in view when the conversation outgrows the panel: the conversation scrolls", async () => {
    const long = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long answer.`).join("\n\n");
    await using fake = await startFakeOpenAI({ script: [{ text: long }] });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "write a long answer");
    await conversation(page).getByText("Line 40 of a long answer.").waitFor();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    await page.getByRole("textbox", { name: "Message" }).fill("next");
    for (const control of [
      page.getByRole("textbox", { name: "Message" }),
      page.getByRole("button", { name: "Send", exact: true }),
    ]) {
      const box = await control.boundingBox();
      expect(box && box.y + box.height).toBeLessThanOrEqual(800);
    }
    const overflow = (selector: string) =>
      page.evaluate(
        `(() => { const e = document.querySelector(${JSON.stringify(selector)}); return e.scrollHeight - e.clientHeight; })()`,
      );
    expect(await overflow('[aria-label="Conversation"]')).toBeGreaterThan(0);
    expect(await overflow("#agent-panel")).toBeLessThanOrEqual(1);
    expect(app.problems).toEqual([]);
  });

  it("tells the model what the editor shows with each message: the open workflow and the selected nodes", async () => {
    await using fake = await startFakeOpenAI({
      script: [{ text: "Nothing open." }, { text: "That is the Sum node." }],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "what is open?");
    await conversation(page).getByText("Nothing open.").waitFor();
    const userText = (request: unknown) => {
      const messages = (request as { messages: { role: string; content: unknown }[] }).messages;
      const content = messages.filter((m) => m.role === "user").at(-1)?.content;
      return typeof content === "string" ? content : JSON.stringify(content);
    };
    expect(userText(fake.requests[0])).toContain("what is open?");
    expect(userText(fake.requests[0])).toContain("The editor has no workflow open.");

    await newWorkflow(page, "Totals");
    await addNode(page, "add", "math.add");
    await addNode(page, "number", "constant.number");
    await select(page, "math_add");
    await page.getByRole("textbox", { name: "Title" }).fill("Sum");
    await send(page, "what does this node do?");
    await conversation(page).getByText("That is the Sum node.").waitFor();
    const id = await page.evaluate(() => new URL(location.href).searchParams.get("workflow"));
    const told = userText(fake.requests[1]);
    expect(told).toContain("what does this node do?");
    expect(told).toContain(
      `The editor has the workflow "Totals" (${id}) open: version 1 with unsaved changes, 2 nodes, 0 connections. Selected: math_add ("Sum").`,
    );
    // The person sees what was sent with their message, collapsed under it.
    await conversation(page).getByText("Sent with what the editor showed").last().click();
    await conversation(page).getByText("Selected: math_add").waitFor();
    // It is part of the stored conversation: a reload shows it again.
    await page.reload();
    await expect.poll(() => conversation(page).getByText("Sent with what the editor showed").count()).toBe(2);
    expect(app.problems).toEqual([]);
  });
});

/** A shown duration ("180 ms", "3.1 s") in milliseconds. */
function msOf(text: string): number {
  const match = /^(\d+(?:\.\d+)?) (ms|s)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * (match[2] === "s" ? 1000 : 1);
}
