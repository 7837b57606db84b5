/**
 * The agent end to end on the server, against scripted model servers speaking the real wire formats:
 * the terminal agent as a real process (request -> action -> observation -> final answer), model turns
 * over a real socket that resume after a drop without calling the provider twice, budgets, Stop,
 * provider failures that keep the thread intact, and no provider key in anything a client receives.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentCommand } from "../../server-bridge/cli/agent.ts";
import { type ModelEvent, TurnBatch } from "../../shared/agent/messages.ts";
import { ScriptedApprover } from "../support/approver.ts";
import { storeEnv } from "../support/database.ts";
import { startFakeAnthropic, startFakeOpenAI } from "../support/fake-models.ts";
import { startTestServer, type TestServer, tempDir } from "../support/server.ts";
import { socketClient } from "../support/sockets.ts";
import { agentConfig, KEY, pipes } from "./terminal-kit.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const user = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }] });

/** One model turn over a socket: its events (each with the id of the batch it came in), until done or error. */
async function turn(
  client: ReturnType<typeof socketClient>,
  input: {
    threadId: string;
    requestId: string;
    append: ReturnType<typeof user>[];
    lastEventId?: string;
    model?: string;
  },
  options: { stopAfter?: number } = {},
): Promise<{ id: string; event: ModelEvent }[]> {
  const seen: { id: string; event: ModelEvent }[] = [];
  await new Promise<void>((resolve, reject) => {
    const sub = client.api.agent.turn.subscribe(input, {
      onData: ({ id, data }) => {
        const { events } = TurnBatch.parse(data);
        for (const event of events) seen.push({ id, event });
        const type = events[events.length - 1]?.type;
        if (type === "done" || type === "error" || seen.length >= (options.stopAfter ?? Number.POSITIVE_INFINITY)) {
          sub.unsubscribe();
          resolve();
        }
      },
      onError: reject,
      onComplete: () => resolve(),
    });
  });
  return seen;
}

const text = (events: { event: ModelEvent }[]) =>
  events.map(({ event }) => (event.type === "text" ? event.delta : "")).join("");

describe("the agent on the server", () => {
  it("runs from the terminal: a request becomes an action, its observation goes back, the answer comes last", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        {
          text: "I'll make it.",
          tool_calls: [
            {
              name: "execute_code",
              arguments: JSON.stringify({
                risk: "low",
                description: "make Demo",
                code: 'import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";\nconst made = await workflows.create({ name: "Demo" });\nexport default made.name;',
              }),
            },
          ],
          usage: { input_tokens: 50, output_tokens: 20 },
        },
        { text: "Done: there is now a workflow called Demo.", usage: { input_tokens: 80, output_tokens: 10 } },
      ],
    });
    const dataDir = tempDir();
    try {
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          "server-bridge/main.ts",
          "agent",
          "list my workflows and make one called Demo",
          "--mode",
          "auto",
        ],
        {
          cwd: ROOT,
          env: { ...process.env, ...(await storeEnv(dataDir)), OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: KEY },
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => (stdout += chunk));
      child.stderr.on("data", (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code, stderr).toBe(0);
      // stdout is a pipe here: it carries the final answer only; the model's text streams to stderr.
      expect(stdout.trim()).toBe("Done: there is now a workflow called Demo.");
      expect(stderr).toContain("I'll make it.\n▶ execute_code: make Demo");
      expect(stderr).toContain('ok: "Demo"');
      // The standing instructions say where "this workflow" is: the editor's, which the ui module works on.
      expect(JSON.stringify(fake.requests[0])).toContain(
        "The ui module works on the workflow open in the user's editor",
      );
      // ...and that a workflow made for the user there is opened for them to see.
      expect(JSON.stringify(fake.requests[0])).toContain("open it there with ui.openWorkflow");
      // The model's second turn was sent the observation of the first turn's action.
      const second = JSON.stringify(fake.requests[1]);
      expect(second).toContain('\\"ok\\":true');
      expect(second).toContain('\\"result\\":\\"Demo\\"');
      expect(`${stdout}${stderr}`).not.toContain(KEY);

      await using server = await startTestServer({}, dataDir);
      const listed = await server.app.agent.threads.list("local");
      expect(listed).toHaveLength(1);
      const stored = (await server.app.agent.threads.messages("local", listed[0]?.id ?? "")).map((m) => m.message.role);
      expect(stored).toEqual(["user", "assistant", "tool", "assistant"]);
      expect(await server.app.store.sql("SELECT name FROM workflows").all()).toEqual([{ name: "Demo" }]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("on a terminal, streams the model's text to stdout, starts each step on its own line, and shows the final answer once", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        { text: "Looking.", tool_calls: [{ name: "execute_code", arguments: "{not json" }] },
        { text: "All done." },
      ],
    });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    // One screen, as stdout and stderr share a terminal.
    const screen: string[] = [];
    const terminal = { isTTY: true, write: (text: string) => screen.push(text) };
    const code = await agentCommand(["say", "hi"], {
      app: server.app,
      sandbox: server.app.sandbox,
      stdout: terminal,
      stderr: terminal,
    });
    expect(code).toBe(0);
    const shown = screen.join("");
    expect(shown).toMatch(/^Looking\.\n {2}invalid_tool_arguments: [^\n]+\nAll done\.\n\[final\] 1 step\(s\)/);
    expect(shown.split("All done.")).toHaveLength(2);
  });

  it("with both streams in one log (2>&1), puts the final answer on a line of its own after the streamed text", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "All done." }] });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const log: string[] = [];
    // Two pipes (stdout's, stderr's) into one file.
    const pipe = () => ({ write: (text: string) => log.push(text) });
    const code = await agentCommand(["say", "hi"], {
      app: server.app,
      sandbox: server.app.sandbox,
      stdout: pipe(),
      stderr: pipe(),
    });
    expect(code).toBe(0);
    expect(log.join("")).toMatch(/^All done\.\nAll done\.\n\[final\] 0 step\(s\)/);
  });

  it("runs the terminal's actions under ACTION_TIMEOUT_MS (config.actionTimeoutMs), the deadline its tool states", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        {
          tool_calls: [
            {
              name: "execute_code",
              arguments: JSON.stringify({ risk: "low", description: "spin", code: "while (true) {}" }),
            },
          ],
        },
        { text: "It ran out of time." },
      ],
    });
    await using server = await startTestServer({ actionTimeoutMs: 300, agent: agentConfig(fake) });
    const { io, stdout, stderr } = pipes();
    expect(await agentCommand(["spin"], { app: server.app, sandbox: server.app.sandbox, ...io })).toBe(0);
    expect(stdout()).toBe("It ran out of time.\n");
    expect(stderr()).toContain(
      "▶ execute_code: spin\n    while (true) {}\n  timeout: The action ran past its time limit of 300 ms",
    );
  });

  it("asks the person at the terminal before a write when no --mode is given, and only reads without one to ask", async () => {
    const create = {
      name: "execute_code",
      arguments: JSON.stringify({
        title: "make Demo",
        code: "import { create_workflow } from '@nodetool-ai/sandbox-nodetool/workflows';\nexport default (await create_workflow({ name: 'Demo' })).name;",
      }),
    };
    await using fake = await startFakeOpenAI({ script: [{ tool_calls: [create] }, { text: "Made it." }] });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const approver = new ScriptedApprover("allow");
    const asked = pipes();
    expect(
      await agentCommand(["make Demo"], { app: server.app, sandbox: server.app.sandbox, approver, ...asked.io }),
    ).toBe(0);
    expect(approver.asked.map((r) => r.capability)).toEqual(["create_workflow"]);
    expect(asked.stderr()).toContain('ok: "Demo"');
    expect(await server.app.store.sql("SELECT name FROM workflows").all()).toEqual([{ name: "Demo" }]);

    fake.script.push({ tool_calls: [create] }, { text: "Could not." });
    const piped = pipes();
    expect(await agentCommand(["make Demo"], { app: server.app, sandbox: server.app.sandbox, ...piped.io })).toBe(0);
    expect(piped.stderr()).toContain("permission_denied: There is no user to ask on this headless run");
    expect(await server.app.store.sql("SELECT name FROM workflows").all()).toEqual([{ name: "Demo" }]);
  });

  it("shows an action's console output in the terminal, as the panel's step card does, the first 20 lines", async () => {
    const code =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the action's own template literal, as source text
      "console.log('hello', { a: 1 });\nfor (let i = 0; i < 25; i++) console.log(`line ${i}`);\nexport default 2;";
    await using fake = await startFakeOpenAI({
      script: [
        { tool_calls: [{ name: "execute_code", arguments: JSON.stringify({ title: "log", code }) }] },
        { text: "Logged." },
      ],
    });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const { io, stdout, stderr } = pipes();
    expect(await agentCommand(["log"], { app: server.app, sandbox: server.app.sandbox, ...io })).toBe(0);
    expect(stdout()).toBe("Logged.\n");
    // The last line says how to go on with the same conversation.
    const [thread] = await server.app.agent.threads.list("local");
    expect(stderr().trimEnd().split("\n").at(-1)).toMatch(
      new RegExp(
        `^\\[final\\] 1 step\\(s\\), \\d+ \\+ \\d+ tokens; to go on with this conversation: --thread ${thread?.id}$`,
      ),
    );
    expect(stderr()).toContain('  ok: 2\n  log: hello {"a":1}\n  log: line 0\n  log: line 1\n');
    expect(stderr()).toContain("  log: line 18\n  … 6 more log line(s)\n");
    expect(stderr()).not.toContain("line 19");
  });

  it("goes on with a conversation given --thread: the model reads what was said before, and the thread grows", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "Hello." }, { text: "Still here." }] });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const first = pipes();
    expect(await agentCommand(["say hi"], { app: server.app, sandbox: server.app.sandbox, ...first.io })).toBe(0);
    const threadId = /--thread (\S+)/.exec(first.stderr())?.[1] ?? "";
    const second = pipes();
    const argv = ["say it again", "--thread", threadId];
    expect(await agentCommand(argv, { app: server.app, sandbox: server.app.sandbox, ...second.io })).toBe(0);
    expect(second.stdout()).toBe("Still here.\n");
    expect(second.stderr()).toContain(`--thread ${threadId}`);
    const sent = JSON.stringify(fake.requests[1]);
    expect(sent.indexOf("say hi")).toBeLessThan(sent.indexOf("Hello."));
    expect(sent.indexOf("Hello.")).toBeLessThan(sent.indexOf("say it again"));
    expect(await server.app.agent.threads.list("local")).toHaveLength(1);
    const stored = await server.app.agent.threads.messages("local", threadId);
    expect(stored.map((m) => m.message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    // A thread that is not there is a usage error naming the recent ones; the model is not called.
    const wrong = pipes();
    const argvWrong = ["again", "--thread", "thr_nope"];
    expect(await agentCommand(argvWrong, { app: server.app, sandbox: server.app.sandbox, ...wrong.io })).toBe(2);
    expect(wrong.stderr()).toContain(
      `There is no conversation "thr_nope" here. The most recent: ${threadId} (say hi).\nusage: npm run --silent agent`,
    );
    expect(fake.requests).toHaveLength(2);
  });

  it("lists the conversations (--list), finds one by its words (--find), and goes on with the newest (--thread last)", async () => {
    await using fake = await startFakeOpenAI({
      script: [{ text: "Hello." }, { text: "Paris." }, { text: "Madrid." }],
    });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const run = async (argv: string[]) => {
      const io = pipes();
      const code = await agentCommand(argv, { app: server.app, sandbox: server.app.sandbox, ...io.io });
      return { code, out: io.stdout(), err: io.stderr() };
    };
    expect(await run(["--list"])).toMatchObject({
      code: 0,
      out: "There are no conversations yet: give a request to start one.\n",
    });
    const none = await run(["--thread", "last", "hi"]);
    expect(none.code).toBe(2);
    expect(none.err).toContain("There are no conversations yet: leave out --thread to start one.");
    expect((await run(["say hi"])).code).toBe(0);
    expect((await run(["what is the capital of France"])).code).toBe(0);
    const [newest, older] = await server.app.agent.threads.list("local");
    if (!newest || !older) throw new Error("two conversations expected");
    // Newest first, each with its id, age and title (and tokens once it used some).
    expect((await run(["--list"])).out.split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(`^${newest.id}  just now  what is the capital of France( {2}\\(\\d+ tokens\\))?$`),
      ),
      expect.stringMatching(new RegExp(`^${older.id}  just now  say hi( {2}\\(\\d+ tokens\\))?$`)),
      "Go on with one: --thread <id> (or --thread last for the newest).",
      "",
    ]);
    // By words in it: the line where they were said follows.
    const found = (await run(["--find", "CAPITAL"])).out.split("\n");
    expect(found[0]).toMatch(new RegExp(`^${newest.id}  just now  what is the capital of France`));
    expect(found.slice(1)).toEqual(["    what is the capital of France", ""]);
    expect((await run(["--find", "zebra"])).out).toBe('No conversation holds "zebra".\n');
    // --thread last goes on with the newest: the model reads what was said there.
    const last = await run(["--thread", "last", "and of Spain?"]);
    expect(last.code).toBe(0);
    expect(last.err).toContain(`--thread ${newest.id}`);
    expect(JSON.stringify(fake.requests[2])).toContain("capital of France");
    // Listing takes no request, and --find needs words: usage errors, no model called.
    expect((await run(["--list", "hi"])).code).toBe(2);
    expect((await run(["--find"])).code).toBe(2);
    expect(fake.requests).toHaveLength(3);
  });

  it("tells the terminal's user which variables to set when no provider is configured, and to run it again", async () => {
    await using server = await startTestServer({ agent: agentConfig(undefined) });
    const { io, stdout, stderr } = pipes();
    expect(await agentCommand(["say", "hi"], { app: server.app, sandbox: server.app.sandbox, ...io })).toBe(1);
    expect(stdout()).toBe("");
    expect(stderr()).toMatch(/^No model provider is configured\. Set OPENAI_BASE_URL .*ANTHROPIC_API_KEY/);
    expect(stderr()).toContain("then run this again.");
    // The terminal agent is no server: nothing to restart.
    expect(stderr()).not.toMatch(/on the server|restart/);
    expect(await server.app.agent.threads.list("local")).toEqual([]);
  });

  it("shows a view_image failure in the terminal as a tool error, and stores it as one", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        { tool_calls: [{ name: "view_image", arguments: '{"image_id":"ast_nope"}' }] },
        { text: "There is no such image." },
      ],
    });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const { io, stdout, stderr } = pipes();
    expect(await agentCommand(["look"], { app: server.app, sandbox: server.app.sandbox, ...io })).toBe(0);
    expect(stdout()).toBe("There is no such image.\n");
    expect(stderr()).toMatch(/▶ view_image: ast_nope\n {2}invalid_call: No image asset "ast_nope"/);
    const [thread] = await server.app.agent.threads.list("local");
    const stored = (await server.app.agent.threads.messages("local", thread?.id ?? "")).map((m) => m.message);
    expect(stored.find((m) => m.role === "tool")).toMatchObject({ name: "view_image", is_error: true });
  });

  it("when stdout is a pipe, leaves it empty when there is no final answer, saying why on stderr; a terminal shows it", async () => {
    await using fake = await startFakeOpenAI({ script: [{ error: { status: 401 } }, { error: { status: 401 } }] });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const piped = pipes();
    expect(await agentCommand(["hi"], { app: server.app, sandbox: server.app.sandbox, ...piped.io })).toBe(1);
    expect(piped.stdout()).toBe("");
    expect(piped.stderr()).toMatch(/unauthorized: [^\n]+\n\[failed\] 0 step\(s\)/);

    const screen: string[] = [];
    const terminal = { isTTY: true, write: (text: string) => screen.push(text) };
    const shown = await agentCommand(["hi"], {
      app: server.app,
      sandbox: server.app.sandbox,
      stdout: terminal,
      stderr: { write: () => true },
    });
    expect(shown).toBe(1);
    expect(screen.join("")).toMatch(/^unauthorized: [^\n]+\n$/);
  });

  it("with an unknown --model, names the models on offer and how to choose one, exit 2, calling no model", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "never" }] });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const { io, stdout, stderr } = pipes();
    const code = await agentCommand(["hi", "--model", "nonexist-model"], {
      app: server.app,
      sandbox: server.app.sandbox,
      ...io,
    });
    expect(code).toBe(2);
    expect(stdout()).toBe("");
    expect(stderr()).toMatch(
      /^There is no model "nonexist-model" here\. Models on offer: openai:gpt-fake-1 \(the default\), openai:gpt-fake-mini\. Name one with --model/,
    );
    expect(stderr()).not.toContain("models.list()");
    expect(fake.requests).toHaveLength(0);
  });

  it("resumes a turn over a new socket after a drop, from its last event id, without calling the provider twice", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        { text: "one two three four five six seven eight", usage: { input_tokens: 5, output_tokens: 8 }, delayMs: 300 },
      ],
    });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const cookie = await server.login();
    const first = socketClient(server, { cookie });
    const { id: threadId } = await first.api.agent.threads.create.mutate({});
    const ask = { threadId, requestId: "turn_resume", append: [user("count")] };
    const before = await turn(first, ask, { stopAfter: 1 });
    await first.close();
    const second = socketClient(server, { cookie });
    const after = await turn(second, { ...ask, lastEventId: before.at(-1)?.id ?? "" });
    await second.close();
    expect(text([...before, ...after])).toBe("one two three four five six seven eight");
    expect(after.at(-1)?.event).toEqual({ type: "done", stop: "end" });
    expect(fake.requests).toHaveLength(1);
    const messages = await server.app.agent.threads.messages("local", threadId);
    expect(messages.map((m) => m.message)).toMatchObject([
      { role: "user" },
      { role: "assistant", text: "one two three four five six seven eight" },
    ]);
    expect(messages[1]?.usage).toEqual({ input_tokens: 5, output_tokens: 8 });
  });

  it("streams every character of an answer longer than a turn buffers one delta at a time, also to a joiner that resumes", async () => {
    // 25,000 deltas: past the 20,000 a turn keeps one by one, text is published in larger chunks.
    const words = Array.from({ length: 25_000 }, (_, i) => `w${i} `).join("");
    await using fake = await startFakeOpenAI({
      script: [{ text: words, textChunks: 25_000, usage: { input_tokens: 5, output_tokens: 900 } }],
    });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    const cookie = await server.login();
    await using reader = socketClient(server, { cookie });
    const { id: threadId } = await reader.api.agent.threads.create.mutate({});
    const ask = { threadId, requestId: "turn_long", append: [user("talk")] };
    const whole = await turn(reader, ask);
    expect(text(whole)).toBe(words);
    expect(whole.at(-1)?.event).toEqual({ type: "done", stop: "end" });
    // A joiner that saw the turn up to a batch in the overflow gets exactly the rest.
    const cut = whole.findIndex(({ event }) => event.type === "text" && event.delta.length > 100);
    expect(cut).toBeGreaterThan(0);
    await using late = socketClient(server, { cookie });
    const rest = await turn(late, { ...ask, lastEventId: whole[cut]?.id ?? "" });
    const upToCut = whole.filter(({ id }) => Number(id) <= Number(whole[cut]?.id));
    expect(text(upToCut) + text(rest)).toBe(words);
    expect(fake.requests).toHaveLength(1);
  });

  it("keeps the model a turn names with its thread, and the next model picked after it", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "one" }, { text: "two" }, { text: "three" }] });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    await using client = socketClient(server, { cookie: await server.login() });
    const { id: threadId } = await client.api.agent.threads.create.mutate({});
    const model = async () => (await client.api.agent.threads.get.query({ threadId })).thread.model;
    expect(await model()).toBeNull();
    await turn(client, { threadId, requestId: "turn_m1", append: [user("a")], model: "openai:gpt-fake-mini" });
    expect(await model()).toBe("openai:gpt-fake-mini");
    // A turn naming the same model again, then one naming none (the thread's own), then another.
    await turn(client, { threadId, requestId: "turn_m2", append: [user("b")], model: "openai:gpt-fake-mini" });
    await turn(client, { threadId, requestId: "turn_m3", append: [user("c")] });
    expect(fake.requests.map((r) => (r as { model?: string }).model)).toEqual([
      "gpt-fake-mini",
      "gpt-fake-mini",
      "gpt-fake-mini",
    ]);
    fake.script.push({ text: "four" });
    await turn(client, { threadId, requestId: "turn_m4", append: [user("d")], model: "openai:gpt-fake-1" });
    expect(await model()).toBe("openai:gpt-fake-1");
  });

  it("renames a thread with its title trimmed, and refuses a blank one with bad input, keeping the old", async () => {
    await using fake = await startFakeOpenAI({ script: [] });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    await using client = socketClient(server, { cookie: await server.login() });
    const { id: threadId } = await client.api.agent.threads.create.mutate({ title: "Old" });
    const title = async () => (await client.api.agent.threads.get.query({ threadId })).thread.title;
    await expect(client.api.agent.threads.rename.mutate({ threadId, title: "   " })).rejects.toMatchObject({
      data: { code: "BAD_REQUEST" },
    });
    expect(await title()).toBe("Old");
    await client.api.agent.threads.rename.mutate({ threadId, title: "  New  " });
    expect(await title()).toBe("New");
  });

  it("keeps the thread intact when the provider fails, and goes on with the next request", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        { error: { status: 500 } },
        { error: { status: 500 } },
        { error: { status: 500 } },
        { text: "back again" },
      ],
    });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    await using client = socketClient(server, { cookie: await server.login() });
    const { id: threadId } = await client.api.agent.threads.create.mutate({});
    const failed = await turn(client, { threadId, requestId: "turn_a", append: [user("hello")] });
    expect(failed.at(-1)?.event).toMatchObject({ type: "error", code: "capability_failed" });
    expect(fake.requests).toHaveLength(3);
    const ok = await turn(client, { threadId, requestId: "turn_b", append: [user("again")] });
    expect(text(ok)).toBe("back again");
    const { messages } = await client.api.agent.threads.get.query({ threadId });
    expect(messages.map((m) => m.message)).toMatchObject([
      { role: "user" },
      { role: "assistant", interrupted: true },
      { role: "user" },
      { role: "assistant", text: "back again" },
    ]);
  });

  it("sends the model the thread as stored now, even when another writer changed rows it read before", async () => {
    await using fake = await startFakeOpenAI({ script: [{ text: "first" }, { text: "second" }] });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    await using client = socketClient(server, { cookie: await server.login() });
    const { id: threadId } = await client.api.agent.threads.create.mutate({});
    await turn(client, { threadId, requestId: "turn_1", append: [user("one")] });
    // Another server (or an operator) rewrites the first request and removes the answer.
    await server.app.store
      .sql("UPDATE agent_messages SET body = ? WHERE thread_id = ? AND seq = 1")
      .run(JSON.stringify(user("one, edited")), threadId);
    await server.app.store.sql("DELETE FROM agent_messages WHERE thread_id = ? AND seq = 2").run(threadId);
    await turn(client, { threadId, requestId: "turn_2", append: [user("two")] });
    const sent = fake.requests.at(-1) as { messages: { role: string; content: unknown }[] };
    const users = sent.messages.filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
    expect(users).toHaveLength(2);
    expect(users[0]).toContain("one, edited");
    expect(users[1]).toContain("two");
    expect(sent.messages.some((m) => m.role === "assistant" && JSON.stringify(m.content).includes("first"))).toBe(
      false,
    );
    const { messages } = await client.api.agent.threads.get.query({ threadId });
    expect(messages.map((m) => m.message)).toMatchObject([
      { role: "user", content: [{ text: "one, edited" }] },
      { role: "user", content: [{ text: "two" }] },
      { role: "assistant", text: "second" },
    ]);
  });

  it("enforces the thread budget on the server, and Stop ends a turn mid-stream", async () => {
    await using fake = await startFakeAnthropic({
      // The refused turn never reaches the provider, so the next one gets the slow turn.
      script: [
        { text: "spent", usage: { input_tokens: 150, output_tokens: 60 } },
        { text: "slow", delayMs: 5_000 },
      ],
    });
    await using server = await startTestServer({
      agent: { ...agentConfig(undefined, { threadTokens: 200 }), anthropicApiKey: KEY, anthropicBaseUrl: fake.url },
    });
    await using client = socketClient(server, { cookie: await server.login() });
    const { id: threadId } = await client.api.agent.threads.create.mutate({});
    expect(text(await turn(client, { threadId, requestId: "t1", append: [user("a")] }))).toBe("spent");
    const refused = await turn(client, { threadId, requestId: "t2", append: [user("b")] });
    expect(refused.at(-1)?.event).toMatchObject({
      type: "error",
      message: expect.stringContaining("AGENT_THREAD_TOKENS"),
    });
    expect(fake.requests).toHaveLength(1);

    const { id: other } = await client.api.agent.threads.create.mutate({});
    const stopping = turn(client, { threadId: other, requestId: "t3", append: [user("c")] });
    await expect.poll(() => fake.requests.length).toBe(2);
    expect(await client.api.agent.stop.mutate({ requestId: "t3" })).toEqual({ stopped: true });
    expect((await stopping).at(-1)?.event).toMatchObject({ type: "error", code: "cancelled" });
    const stored = (await server.app.agent.threads.messages("local", other)).map((m) => m.message);
    expect(stored.at(-1)).toMatchObject({ role: "assistant", interrupted: true });
  });

  it("says exactly what to set when no provider is configured, and never shows a key", async () => {
    await using bare = await startTestServer({ agent: agentConfig(undefined) });
    await using page = socketClient(bare, { cookie: await bare.login() });
    const status = await page.api.agent.status.query();
    expect(status).toMatchObject({ configured: false, message: expect.stringContaining("OPENAI_BASE_URL") });
    const { id: threadId } = await page.api.agent.threads.create.mutate({});
    const events = await turn(page, { threadId, requestId: "none", append: [user("hi")] });
    expect(events.at(-1)?.event).toMatchObject({ type: "error", code: "capability_unavailable" });

    // A provider whose error echoes the key: nothing the client receives or the store keeps holds it.
    await using fake = await startFakeOpenAI({
      script: [
        { error: { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}. sk-...CRET` } } } },
      ],
    });
    const logs: string[] = [];
    await using server: TestServer = await startTestServer({ agent: agentConfig(fake) });
    server.app.log = (level, message, detail) => logs.push(`${level} ${message} ${JSON.stringify(detail ?? null)}`);
    await using client = socketClient(server, { cookie: await server.login() });
    const { id } = await client.api.agent.threads.create.mutate({});
    const answered = await turn(client, { threadId: id, requestId: "key", append: [user("hi")] });
    expect(answered.at(-1)?.event).toMatchObject({ type: "error", code: "unauthorized" });
    const everything = JSON.stringify([
      answered,
      await client.api.agent.status.query(),
      await client.api.agent.threads.get.query({ threadId: id }),
      await server.app.store.sql("SELECT body FROM agent_messages").all(),
      logs,
    ]);
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain("CRET");
    expect(fake.headers[0]?.authorization).toBe(`Bearer ${KEY}`);
  });
});
