/**
 * The agent in Chromium, by accessible names, against a scripted model server speaking OpenAI Chat
 * Completions: a request becomes an action in the page's own sandbox, its approval is answered in the
 * usual dialog, the observation goes back to the model and the answer shows; malformed output, a cut
 * stream, a 429, the step cap and Stop mid-action each leave a readable conversation; a reload shows
 * it as it was; and no provider key reaches anything the page receives.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { action, agent, conversation, KEY, send } from "./agent-page.ts";
import { openApp, WEB_DIR } from "./browser.ts";
import { dialog } from "./panel.ts";

const CREATE_DEMO = `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const made = await workflows.create({ name: "Demo", _message: "the workflow you asked for" });
export default made.name;`;

describe("the agent in the panel", () => {
  it("runs a request: an action, its approval in the dialog, the observation back to the model, the answer", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        { text: "I will create it.", tool_calls: [action(CREATE_DEMO, { title: "Create Demo", risk: "high" })] },
        { text: "Created the workflow Demo.", usage: { input_tokens: 120, output_tokens: 12 } },
      ],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page, server } = app;
    const received: string[] = [];
    page.on("websocket", (socket) => socket.on("framereceived", ({ payload }) => received.push(String(payload))));
    page.on("response", async (response) => {
      received.push(await response.text().catch(() => ""));
    });
    await page.reload();
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "make a workflow called Demo");
    const approval = dialog(page);
    await approval.waitFor();
    expect(await approval.textContent()).toContain("the workflow you asked for");
    await approval.getByRole("button", { name: "Allow once" }).click();
    await conversation(page).getByText("Created the workflow Demo.").waitFor();
    const step = conversation(page).getByRole("article", { name: /Create Demo/ });
    expect(await step.textContent()).toContain("create_workflow: ok");
    expect(await step.textContent()).toContain("(high risk)");
    // The second turn carried the observation of the action.
    expect(JSON.stringify(fake.requests[1])).toContain('\\"result\\":\\"Demo\\"');
    expect(app.problems).toEqual([]);
    expect(await server.app.store.sql("SELECT name FROM workflows").all()).toEqual([{ name: "Demo" }]);

    // A reload shows the conversation as it was, with its tokens.
    await page.reload();
    await conversation(page).getByText("Created the workflow Demo.").waitFor();
    expect(await conversation(page).textContent()).toContain("make a workflow called Demo");
    expect(await conversation(page).textContent()).toContain("120 in + 12 out tokens");

    // No provider key in any response or socket frame the page received, nor in the built bundle.
    expect(received.join("\n")).not.toContain(KEY);
    for (const file of readdirSync(join(WEB_DIR, "assets"))) {
      expect(readFileSync(join(WEB_DIR, "assets", file), "utf8")).not.toContain(KEY);
    }
  });

  it("shows a step's result as the Action tab shows one: a list of records as a table, a record as a tree", async () => {
    const rows = `export default [{ name: "Adder", nodes: 2 }, { name: "Doubler", nodes: 1 }];`;
    const record = `export default { name: "Adder", graph: { nodes: [1, 2], edges: [] } };`;
    await using fake = await startFakeOpenAI({
      script: [
        { tool_calls: [action(rows, { title: "List them" }), action(record, { title: "Read one" })] },
        { text: "Two workflows." },
      ],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "what workflows do I have?");
    await conversation(page).getByText("Two workflows.").waitFor();
    const table = conversation(page).getByRole("article", { name: "Step: List them" }).getByRole("table");
    expect(await table.getByRole("columnheader").allTextContents()).toEqual(["name", "nodes"]);
    expect(await table.getByRole("row").count()).toBe(3);
    const tree = conversation(page).getByRole("article", { name: "Step: Read one" }).locator(".json-tree");
    expect(await tree.textContent()).toContain('"Adder"');
    expect(app.problems).toEqual([]);
  });

  it("renders the model's Markdown, and nothing it writes as HTML, a script link or an image runs or loads", async () => {
    const answer = [
      "Made **Demo** for you.",
      "",
      "- first item",
      "- second item",
      "",
      "| name | nodes |",
      "| --- | --- |",
      "| Demo | 0 |",
      "",
      "```js",
      "export default 1;",
      "```",
      "",
      'Raw <img src="/x.png" onerror="window.__injected = 1"> stays text.',
      "[the docs](https://example.com/docs) [a trap](javascript:window.__injected=2) ![pixel](http://127.0.0.1:9/leak?d=secret)",
    ].join("\n");
    await using fake = await startFakeOpenAI({ script: [{ text: answer }] });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "make Demo");
    const log = conversation(page);
    await log.locator("strong", { hasText: "Demo" }).waitFor();
    expect(await log.getByRole("listitem").allTextContents()).toEqual(["first item", "second item"]);
    expect(await log.getByRole("cell", { name: "0", exact: true }).count()).toBe(1);
    expect(await log.locator("pre code").first().textContent()).toContain("export default 1;");
    const docs = log.getByRole("link", { name: "the docs" });
    expect(await docs.getAttribute("href")).toBe("https://example.com/docs");
    expect(await docs.getAttribute("target")).toBe("_blank");
    expect(await docs.getAttribute("rel")).toContain("noopener");
    expect(await log.getByRole("link", { name: "a trap" }).count()).toBe(0);
    expect(await log.getByText("a trap").count()).toBe(1);
    // The image is a link the person may open; nothing was fetched for it, and no <img> was made.
    expect(await log.getByRole("link", { name: "image: pixel" }).getAttribute("href")).toBe(
      "http://127.0.0.1:9/leak?d=secret",
    );
    expect(await log.locator("img").count()).toBe(0);
    expect(await log.textContent()).toContain('Raw <img src="/x.png" onerror="window.__injected = 1"> stays text.');
    expect(requested.filter((url) => url.includes("leak") || url.endsWith("/x.png"))).toEqual([]);
    expect(await page.evaluate(() => (window as { __injected?: unknown }).__injected)).toBeUndefined();
    expect(app.problems).toEqual([]);
  });

  it("shows a subtask's steps while it works, and counts its tokens in the conversation that started it", async () => {
    const SUBTASK = `import { agents } from "@nodetool-ai/sandbox-nodetool/agents";
export default (await agents.run({ task: "make Child", steps: 2 })).answer;`;
    const CREATE_CHILD = `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
export default (await workflows.create({ name: "Child" })).name;`;
    await using fake = await startFakeOpenAI({
      script: [
        { tool_calls: [action(SUBTASK, { title: "Delegate" })], usage: { input_tokens: 10, output_tokens: 5 } },
        {
          tool_calls: [action(CREATE_CHILD, { title: "Make Child" })],
          usage: { input_tokens: 600, output_tokens: 30 },
        },
        { text: "child done", usage: { input_tokens: 400, output_tokens: 20 } },
        { text: "The subtask made Child.", usage: { input_tokens: 20, output_tokens: 2 } },
      ],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page, server } = app;
    await page.reload();
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "delegate it");
    const approval = dialog(page);
    await approval.getByRole("button", { name: "Allow once" }).click();
    // The child's write asks in the same dialog; meanwhile the parent's step shows the child's step.
    await approval.getByText("create_workflow").first().waitFor();
    const progress = conversation(page).getByRole("status", { name: "Subtask progress" });
    await expect.poll(() => progress.textContent()).toBe("Subtask step 1 of 2: Make Child");
    await approval.getByRole("button", { name: "Allow once" }).click();
    await conversation(page).getByText("The subtask made Child.").waitFor();
    const rows = (await server.app.store
      .sql("SELECT title, input_tokens, output_tokens FROM agent_threads ORDER BY created_at")
      .all()) as { title: string; input_tokens: number; output_tokens: number }[];
    expect(rows).toMatchObject([
      { title: "delegate it", input_tokens: 1030, output_tokens: 57 },
      { title: "Subtask: make Child", input_tokens: 1000, output_tokens: 50 },
    ]);
    expect(await server.app.store.sql("SELECT name FROM workflows").all()).toEqual([{ name: "Child" }]);
    expect(app.problems).toEqual([]);
  });

  it("keeps a readable conversation through malformed output, a 429, a cut stream and the step cap", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        { tool_calls: [{ name: "execute_code", arguments: "{not json" }] },
        { error: { status: 429, headers: { "retry-after": "0" } } },
        { text: "Fixed: ", tool_calls: [action("```js\nexport default 6 * 7;\n```")] },
        { text: "The answer is 42." },
        { text: "Half an answ", cutAfterChars: 12 },
      ],
    });
    await using app = await openApp({ agent: agent(fake, { stepCap: 2 }) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await send(page, "compute something");
    await conversation(page).getByText("The answer is 42.").waitFor();
    const text = (await conversation(page).textContent()) ?? "";
    expect(text).toContain("invalid_tool_arguments");
    expect(text).toContain("ok in");
    // The 429 was retried by the provider client: the bad call, the 429, its retry, the answer.
    expect(fake.requests).toHaveLength(4);
    await send(page, "again");
    await conversation(page)
      .getByText(/The answer was cut off/)
      .waitFor();
    // Its reason alone, not also that it did not finish.
    expect(await conversation(page).getByText("This turn was interrupted before it finished.").count()).toBe(0);

    // The step cap: a model that keeps calling tools is told, then stopped.
    fake.script.push(...Array.from({ length: 4 }, () => ({ tool_calls: [action("export default 1;")] })));
    await send(page, "loop forever");
    await conversation(page).getByText("Stopped after 2 steps (the step cap) without a final answer.").waitFor();
  });

  it("keeps the newest message in view as a long conversation grows, and leaves a person who scrolled up where they were", async () => {
    const steps = (n: number, answer: string) => [
      ...Array.from({ length: n }, (_, i) => ({ tool_calls: [action(`export default ${i};`)] })),
      { text: answer },
    ];
    await using fake = await startFakeOpenAI({ script: steps(12, "Twelve steps done.") });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await send(page, "take twelve steps");
    const answer = conversation(page).getByText("Twelve steps done.");
    await answer.waitFor();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    /** Whether `target` sits wholly inside the conversation's visible box. */
    const placement = (target: import("playwright-core").Locator) =>
      target.evaluate((element) => {
        const box = (element.closest("section") as HTMLElement).getBoundingClientRect();
        const own = element.getBoundingClientRect();
        return own.top >= box.top - 1 && own.bottom <= box.bottom + 1 ? "in view" : "outside";
      });
    const region = conversation(page);
    expect(await region.evaluate((element) => element.scrollHeight > element.clientHeight * 1.5)).toBe(true);
    // The scroll to the newest message follows the render by a frame or so: wait for it, not a fixed time.
    await expect.poll(() => placement(answer)).toBe("in view");
    const request = region.getByText("take twelve steps");
    expect(await placement(request)).toBe("outside");

    // Sending brings the person back to the newest message.
    await request.scrollIntoViewIfNeeded();
    expect(await placement(request)).toBe("in view");
    fake.script.push(...steps(4, "Four more done.").map((turn) => ({ ...turn, delayMs: 250 })));
    await send(page, "four more");
    const second = region.getByText("four more", { exact: true });
    await second.waitFor();
    await expect.poll(() => placement(second)).toBe("in view");
    // Scrolled back up to read while the agent works, the person stays there as steps come in. (On a
    // loaded machine the scroll that followed sending may land after this one: scroll up again until
    // the request stays in view through two frames.)
    const frames = () =>
      page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await expect
      .poll(async () => {
        await request.scrollIntoViewIfNeeded();
        await frames();
        return placement(request);
      })
      .toBe("in view");
    /** The request's offset from the top of the conversation's visible box. */
    const offset = (target: import("playwright-core").Locator) =>
      target.evaluate(
        (element) =>
          element.getBoundingClientRect().top - (element.closest("section") as HTMLElement).getBoundingClientRect().top,
      );
    const before = await offset(request);
    await region.getByText("Four more done.").waitFor();
    expect(Math.abs((await offset(request)) - before)).toBeLessThan(4);

    // Reading above, the person has `Jump to newest`, which takes them to the newest message and back
    // to the message box; at the newest message there is none.
    const jump = page.getByRole("button", { name: "Jump to newest", exact: true });
    const composer = await page.getByRole("textbox", { name: "Message" }).boundingBox();
    await jump.waitFor();
    // It lies over the conversation's foot: the message box has not moved for it.
    const sent = page.getByRole("button", { name: "Send" });
    const [over, under] = [await jump.boundingBox(), await region.boundingBox()];
    expect(over && under && over.y > under.y && over.y + over.height <= under.y + under.height).toBe(true);
    await jump.click();
    await expect.poll(() => placement(region.getByText("Four more done."))).toBe("in view");
    await jump.waitFor({ state: "detached" });
    expect(await page.getByRole("textbox", { name: "Message" }).evaluate((el) => el === document.activeElement)).toBe(
      true,
    );
    expect((await page.getByRole("textbox", { name: "Message" }).boundingBox())?.y).toBe(composer?.y);
    expect(await sent.isVisible()).toBe(true);
  });

  it("opens another conversation at its newest message, though the person had scrolled up in this one", async () => {
    const steps = (n: number, answer: string) => [
      ...Array.from({ length: n }, (_, i) => ({ tool_calls: [action(`export default ${i};`)] })),
      { text: answer },
    ];
    await using fake = await startFakeOpenAI({ script: [...steps(12, "First done."), ...steps(12, "Second done.")] });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await send(page, "first");
    await conversation(page).getByText("First done.").waitFor();
    await page.getByRole("button", { name: "New conversation" }).click();
    await send(page, "second");
    await conversation(page).getByText("Second done.").waitFor();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    const threads = page.getByLabel("Conversations");
    await threads.selectOption({ label: "first" });
    await conversation(page).getByText("First done.").waitFor();
    // Scrolled up to read the first conversation...
    const region = conversation(page);
    await expect
      .poll(async () => {
        await region.getByText("first", { exact: true }).scrollIntoViewIfNeeded();
        return page.getByRole("button", { name: "Jump to newest", exact: true }).count();
      })
      .toBe(1);
    // ...then the second opens at its newest message, with nothing to jump to.
    await threads.selectOption({ label: "second" });
    const answer = region.getByText("Second done.");
    await answer.waitFor();
    const inView = () =>
      answer.evaluate((element) => {
        const box = (element.closest("section") as HTMLElement).getBoundingClientRect();
        const own = element.getBoundingClientRect();
        return own.top >= box.top - 1 && own.bottom <= box.bottom + 1;
      });
    await expect.poll(inView).toBe(true);
    expect(await page.getByRole("button", { name: "Jump to newest", exact: true }).count()).toBe(0);
  });

  it("shows a long conversation's newest messages, the earlier ones on request, and its buttons inside the panel", async () => {
    const steps = Array.from({ length: 55 }, (_, i) => ({ tool_calls: [action(`export default ${i};`)] }));
    await using fake = await startFakeOpenAI({ script: [...steps, { text: "Fifty-five steps done." }] });
    await using app = await openApp({ agent: agent(fake, { stepCap: 60 }) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await send(page, "take fifty-five steps");
    await conversation(page).getByText("Fifty-five steps done.").waitFor();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    // 57 messages (the request, 55 steps, the answer): the newest 50 are on the page.
    const check = async () => {
      const earlier = conversation(page).getByRole("button", { name: /Show earlier messages/ });
      expect(await earlier.textContent()).toContain("7 more");
      expect(await conversation(page).getByRole("article").count()).toBe(49);
      expect(await conversation(page).getByText("take fifty-five steps").count()).toBe(0);
      await earlier.focus();
      await page.keyboard.press("Enter");
      await conversation(page).getByText("take fifty-five steps").waitFor();
      expect(await conversation(page).getByRole("article").count()).toBe(55);
      expect(await earlier.count()).toBe(0);
    };
    await check();
    // The thread's buttons wrap inside the panel instead of running past its edge.
    const region = await conversation(page).boundingBox();
    for (const name of ["New conversation", "More conversation actions"]) {
      const box = await page.getByRole("button", { name, exact: true }).boundingBox();
      expect(box && region && box.x + box.width <= region.x + region.width + 1, name).toBe(true);
    }
    // A reload opens the thread at its newest messages again.
    await page.reload();
    await conversation(page).getByText("Fifty-five steps done.").waitFor();
    await check();
    expect(app.problems).toEqual([]);
  });

  it("stops mid-action with Stop, and the next request runs", async () => {
    await using fake = await startFakeOpenAI({
      script: [{ tool_calls: [action("while (true) {}")] }, { text: "After the stop." }],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await page.getByLabel("Mode", { exact: true }).selectOption("auto");
    await send(page, "spin");
    await conversation(page).getByText("Running…").waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    expect(await conversation(page).textContent()).toContain("cancelled");
    await send(page, "now answer");
    await conversation(page).getByText("After the stop.").waitFor();
  });

  it("says which variables to set when no provider is configured, and the Action editor still works", async () => {
    await using app = await openApp();
    const { page } = app;
    // With no provider the panel opens on the Action tab; the Agent tab says what to set.
    await page.getByRole("textbox", { name: "Action" }).waitFor();
    await page.getByRole("tab", { name: "Agent" }).click();
    await page.getByText("OPENAI_BASE_URL").first().waitFor();
    expect(await page.getByRole("textbox", { name: "Message" }).count()).toBe(0);
    await page.getByRole("tab", { name: "Action" }).click();
    await page.getByRole("textbox", { name: "Action" }).waitFor();
  });
});
