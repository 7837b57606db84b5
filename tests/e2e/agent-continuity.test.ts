/**
 * Carrying on in the agent panel: `Retry` sends a request that got no final answer again (after a
 * reload too, and for a turn a crash cut), a step's code goes to the `Action` editor to be changed and
 * run by the person, the `Model` chosen is kept across reloads, and files attached to a message are
 * saved as the person's assets and named to the agent by their ids, and an answer copies with `Copy`
 * (a code block in it with `Copy the code`, and goes to the `Action` editor when it is JavaScript), and
 * the conversation downloads as Markdown with `Export`.
 */
import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { action, agent, conversation, conversationAction, send } from "./agent-page.ts";
import { openApp } from "./browser.ts";
import { finished } from "./panel.ts";

describe("carrying on in the agent panel", () => {
  it("sends a request that got no final answer again with Retry, after a reload too; an answered one has none", async () => {
    await using fake = await startFakeOpenAI({
      script: [{ error: { status: 401 } }, { text: "Third time lucky." }, { text: "Half an answ", cutAfterChars: 12 }],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page, server } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    const retry = page.getByRole("button", { name: "Retry" });
    await send(page, "plan my week");
    await conversation(page)
      .getByText(/The provider refused the key/)
      .waitFor();
    // The reason is stored, so Retry is there after a reload as well.
    await page.reload();
    await conversation(page)
      .getByText(/The provider refused the key/)
      .waitFor();
    await retry.click();
    await conversation(page).getByText("Third time lucky.").waitFor();
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    expect(await retry.count()).toBe(0);
    // The person goes on typing while it runs: the cursor is in the message box.
    expect(await page.evaluate(() => document.activeElement?.closest("label")?.textContent?.trim())).toMatch(
      /^Message/,
    );
    // The request went to the model again as it was written, and the conversation holds it twice.
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1])).toContain("plan my week");
    const rows = (await server.app.store.sql("SELECT body FROM agent_messages ORDER BY seq").all()) as {
      body: string;
    }[];
    const asked = rows.filter((row) => row.body.includes('"role":"user"') && row.body.includes("plan my week"));
    expect(asked).toHaveLength(2);

    // A cut stream: Retry again, naming the request it sends.
    await send(page, "and the weekend?");
    await conversation(page)
      .getByText(/cut off/)
      .waitFor();
    expect(await retry.getAttribute("title")).toBe('Send "and the weekend?" again');

    // A turn a crash cut (stored as begun, never finished, no reason known) says so, and has Retry too.
    const [owner] = (await server.app.store.sql("SELECT user_id FROM agent_threads").all()) as { user_id: string }[];
    if (!owner) throw new Error("no thread");
    const crashed = await server.app.agent.threads.create(owner.user_id, "crashed");
    await server.app.agent.threads.append(crashed.id, [
      { role: "user", content: [{ type: "text", text: "tidy my assets" }] },
      { role: "assistant", text: "Let me", tool_calls: [], interrupted: true },
    ]);
    await page.reload();
    await page.getByLabel("Conversations").selectOption({ label: "crashed" });
    await conversation(page).getByText("This turn was interrupted before it finished.").waitFor();
    expect(await retry.getAttribute("title")).toBe('Send "tidy my assets" again');
    expect(app.problems).toEqual([]);
  });

  it("keeps the model the person chose across a reload, until the server no longer offers it", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "From mini." }, { text: "Mini again." }] });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    const model = page.getByRole("combobox", { name: "Model" });
    await model.waitFor();
    expect(await model.inputValue()).toBe("openai:gpt-fake-1");
    await model.selectOption("openai:gpt-fake-mini");
    await send(page, "first");
    await conversation(page).getByText("From mini.").waitFor();
    await page.reload();
    await conversation(page).getByText("From mini.").waitFor();
    await expect.poll(() => model.inputValue()).toBe("openai:gpt-fake-mini");
    await send(page, "second");
    await conversation(page).getByText("Mini again.").waitFor();
    expect(fake.requests.map((body) => (body as { model: string }).model)).toEqual(["gpt-fake-mini", "gpt-fake-mini"]);
    // A kept choice the server no longer offers gives way to its default.
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const opened = indexedDB.open("keyval-store");
          opened.onerror = () => reject(opened.error);
          opened.onsuccess = () => {
            const put = opened.result
              .transaction("keyval", "readwrite")
              .objectStore("keyval")
              .put("openai:gone", "agent-model");
            put.onsuccess = () => resolve();
            put.onerror = () => reject(put.error);
          };
        }),
    );
    await page.reload();
    await conversation(page).getByText("Mini again.").waitFor();
    await expect.poll(() => model.inputValue()).toBe("openai:gpt-fake-1");
    expect(app.problems).toEqual([]);
  });

  it("takes a step's code to the Action editor, where the person edits and runs it", async () => {
    await using fake = await startFakeOpenAI({
      script: [{ tool_calls: [action("export default 6 * 7;", { title: "Multiply" })] }, { text: "It is 42." }],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "what is six times seven?");
    await conversation(page).getByText("It is 42.").waitFor();
    const step = conversation(page).getByRole("article", { name: /Multiply/ });
    await step.getByText("Code", { exact: true }).click();
    await step.getByRole("button", { name: "Edit in Action tab" }).click();
    expect(await page.getByRole("tab", { name: "Action" }).getAttribute("aria-selected")).toBe("true");
    const editor = page.getByRole("textbox", { name: "Action" });
    expect(await editor.textContent()).toBe("export default 6 * 7;");
    // The cursor is in the editor: the person edits and runs it by keyboard.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Action");
    await page.keyboard.press("ControlOrMeta+End");
    await page.keyboard.press("Backspace");
    await page.keyboard.insertText(" + 1;");
    await page.keyboard.press("ControlOrMeta+Enter");
    expect(await finished(page)).toContain("43");
    // It is the Action tab's draft now: a reload keeps it.
    await page.reload();
    await page.getByRole("tab", { name: "Action" }).click();
    await expect.poll(() => editor.textContent()).toBe("export default 6 * 7 + 1;");
    expect(app.problems).toEqual([]);
  });

  it("saves attached files as the person's assets and names them to the agent, which can look at an image", async () => {
    await using fake = await startFakeOpenAI({ script: [] });
    await using app = await openApp({ agent: agent(fake) });
    const { page, server } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#0a0" } })
      .png()
      .toBuffer();
    const attach = async (files: { name: string; mimeType: string; buffer: Buffer }[]) => {
      const [chooser] = await Promise.all([
        page.waitForEvent("filechooser"),
        page.getByRole("button", { name: "Attach files" }).click(),
      ]);
      await chooser.setFiles(files);
    };
    await attach([
      { name: "dot.png", mimeType: "image/png", buffer: png },
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("buy milk") },
      { name: "broken.png", mimeType: "image/png", buffer: Buffer.from("not a picture") },
    ]);
    const attached = page.getByRole("list", { name: "Attached files" });
    // A file the server refuses says why and is not sent; the person removes it.
    await attached.getByRole("alert").waitFor();
    await expect.poll(() => attached.locator("li.saved").count()).toBe(2);
    await page.getByRole("button", { name: "Remove broken.png" }).click();
    const assets = (await server.app.store.sql("SELECT id, name FROM assets ORDER BY name").all()) as {
      id: string;
      name: string;
    }[];
    expect(assets.map((a) => a.name)).toEqual(["dot.png", "notes.txt"]);
    const dot = assets[0]?.id ?? "";
    fake.script.push(
      { tool_calls: [{ name: "view_image", arguments: JSON.stringify({ image_id: dot }) }] },
      { text: "A green square." },
    );
    await send(page, "what is in the picture?");
    await conversation(page).getByText("A green square.").waitFor();
    // The request named both files with their asset ids; the list is empty for the next message.
    const asked = JSON.stringify(fake.requests[0]);
    expect(asked).toContain("what is in the picture?");
    expect(asked).toContain(`- dot.png: asset ${dot} (image/png, `);
    expect(asked).toContain(`- notes.txt: asset ${assets[1]?.id} (text/plain`);
    expect(asked).not.toContain("broken.png");
    expect(await attached.count()).toBe(0);
    // The person's message shows its lines as sent.
    const bubble = conversation(page).locator(".user").filter({ hasText: "what is in the picture?" });
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered lines are what is checked
    expect(await bubble.innerText()).toContain(
      `what is in the picture?\n\nAttached (my assets):\n- dot.png: asset ${dot}`,
    );
    // The model was shown the picture itself, and the conversation shows it too.
    expect(JSON.stringify(fake.requests[1])).toContain("data:image/png;base64,");
    await conversation(page).locator("img.step-image").waitFor();

    // A file dropped on the conversation, and one pasted into Message (a screenshot), are attached too.
    await page.evaluate(() => {
      const drop = new DataTransfer();
      drop.items.add(new File(["dropped"], "dropped.txt", { type: "text/plain" }));
      const region = document.querySelector('[aria-label="Conversation"]');
      region?.dispatchEvent(new DragEvent("dragover", { dataTransfer: drop, bubbles: true, cancelable: true }));
      region?.dispatchEvent(new DragEvent("drop", { dataTransfer: drop, bubbles: true, cancelable: true }));
      const paste = new DataTransfer();
      paste.items.add(new File(["pasted"], "pasted.txt", { type: "text/plain" }));
      document
        .querySelector("textarea")
        ?.dispatchEvent(new ClipboardEvent("paste", { clipboardData: paste, bubbles: true, cancelable: true }));
    });
    await expect.poll(() => attached.locator("li.saved").count()).toBe(2);
    expect(await attached.textContent()).toMatch(/dropped\.txt.*pasted\.txt/);
    expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("");
    await page.getByRole("button", { name: "Remove dropped.txt" }).click();
    await page.getByRole("button", { name: "Remove pasted.txt" }).click();

    // A request that never reaches the conversation (deleted in another tab) gives back its text and files.
    const [thread] = (await server.app.store.sql("SELECT id, user_id FROM agent_threads").all()) as {
      id: string;
      user_id: string;
    }[];
    if (!thread) throw new Error("no thread");
    await server.app.agent.threads.delete(thread.user_id, thread.id);
    await attach([{ name: "more.txt", mimeType: "text/plain", buffer: Buffer.from("eggs") }]);
    await expect.poll(() => attached.locator("li.saved").count()).toBe(1);
    await send(page, "and this one?");
    await page.getByRole("alert").first().waitFor();
    await expect.poll(() => page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("and this one?");
    expect(await attached.locator("li.saved").textContent()).toContain("more.txt");
    expect(app.problems).toEqual([]);
  });

  it("copies an answer's text, as the model wrote it, with Copy; a step has none", async () => {
    const ANSWER = "The **sum** is `42`.\n\n- checked twice";
    await using fake = await startFakeOpenAI({
      script: [{ tool_calls: [action("export default 40 + 2;", { title: "Sum" })] }, { text: ANSWER }],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page, context } = app;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(page.url()).origin });
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "add them up");
    await conversation(page).getByText("checked twice").waitFor();
    const copy = conversation(page).getByRole("button", { name: "Copy the answer" });
    expect(await copy.count()).toBe(1);
    await copy.click();
    await conversation(page).getByRole("status").filter({ hasText: "Copied." }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ANSWER);
    expect(app.problems).toEqual([]);
  });

  it("exports the open conversation as a Markdown file: requests, steps with their code and outcome, answers", async () => {
    await using fake = await startFakeOpenAI({
      script: [{ tool_calls: [action("export default 40 + 2;", { title: "Sum" })] }, { text: "It is **42**." }],
    });
    await using app = await openApp({ agent: agent(fake) });
    const { page } = app;
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "add 40 and 2");
    await conversation(page).getByText("It is").waitFor();
    const [download] = await Promise.all([page.waitForEvent("download"), conversationAction(page, "Export")]);
    expect(download.suggestedFilename()).toBe("add 40 and 2.md");
    const text = await readFile(await download.path(), "utf8");
    expect(text).toMatch(
      /^# add 40 and 2\n\n## You\n\nadd 40 and 2\n\n## Agent\n\n\*\*Step: Sum\*\*\n\n```js\nexport default 40 \+ 2;\n```\n\nok in \d+ ms\n\n```json\n42\n```\n\nIt is \*\*42\*\*\.\n$/,
    );
    expect(app.problems).toEqual([]);
  });

  it("gives a code block in an answer Copy the code, and a JavaScript one Edit in Action tab", async () => {
    const CODE = 'import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";\nexport default 6 * 7;';
    const ANSWER = `Run this yourself:\n\n\`\`\`js\n${CODE}\n\`\`\`\n\nor from a shell:\n\n\`\`\`sh\nnpm run action -- sum.js\n\`\`\``;
    await using fake = await startFakeOpenAI({ script: [{ text: ANSWER }] });
    await using app = await openApp({ agent: agent(fake) });
    const { page, context } = app;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(page.url()).origin });
    await page.getByRole("combobox", { name: "Model" }).waitFor();
    await send(page, "how do I count?");
    await conversation(page).getByText("or from a shell").waitFor();
    const blocks = conversation(page).locator(".code-block");
    await blocks.nth(1).waitFor();
    expect(await blocks.count()).toBe(2);
    // Each block copies its own code; only the JavaScript one goes to the Action tab.
    await blocks.nth(1).getByRole("button", { name: "Copy the code" }).click();
    await blocks.nth(1).getByRole("status").filter({ hasText: "Copied." }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("npm run action -- sum.js");
    expect(await blocks.nth(1).getByRole("button", { name: "Edit in Action tab" }).count()).toBe(0);
    await blocks.nth(0).getByRole("button", { name: "Copy the code" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(CODE);
    await blocks.nth(0).getByRole("button", { name: "Edit in Action tab" }).click();
    expect(await page.getByRole("tab", { name: "Action" }).getAttribute("aria-selected")).toBe("true");
    await expect
      .poll(() =>
        page
          .getByRole("textbox", { name: "Action" })
          .evaluate((el) => [...el.querySelectorAll(".cm-line")].map((line) => line.textContent).join("\n")),
      )
      .toBe(CODE);
    await page.keyboard.press("ControlOrMeta+Enter");
    expect(await finished(page)).toContain("42");
    expect(app.problems).toEqual([]);
  });
});
