/**
 * Finding a conversation by what was said in it (`agent.threads.search`): the person's words, the
 * model's, a step's code and what it answered; never the stored JSON's own keys, never another user's.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../shared/agent/messages.ts";
import { startFakeOpenAI } from "../support/fake-models.ts";
import { startTestServer } from "../support/server.ts";
import { socketClient } from "../support/sockets.ts";
import { agentConfig } from "./terminal-kit.ts";

const user = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }] });

describe("finding a conversation", () => {
  it("by its title or by words, code or results in its messages, case aside, newest first, with the words around", async () => {
    await using fake = await startFakeOpenAI({ script: [] });
    await using server = await startTestServer({ agent: agentConfig(fake) });
    await using client = socketClient(server, { cookie: await server.login() });
    const threads = server.app.agent.threads;
    const invoices = await client.api.agent.threads.create.mutate({ title: "Invoices" });
    await threads.append(invoices.id, [
      user("Sum the March invoices from the shared folder, please."),
      {
        role: "assistant",
        text: "I will read them.",
        tool_calls: [
          {
            id: "c1",
            name: "execute_code",
            arguments: JSON.stringify({ code: "const rows = await readCsv('march.csv');" }),
          },
        ],
      },
      {
        role: "tool",
        tool_call_id: "c1",
        name: "execute_code",
        content: [{ type: "text", text: "Done: 100%_ of rows" }],
      },
    ]);
    const greeting = await client.api.agent.threads.create.mutate({ title: "Greeting" });
    await threads.append(greeting.id, [user("Say hello to Ada in March.")]);
    // Another user's conversation holds the same words: never found.
    const other = await server.app.credentials.addUser("someone");
    const theirs = await threads.create(other.userId, "Their invoices");
    await threads.append(theirs.id, [user("march invoices")]);

    const search = async (query: string) =>
      (await client.api.agent.threads.search.query({ query })).found.map((f) => [f.thread.title, f.found]);
    // Newest first (Greeting was written last); each with the words around where it matched.
    expect(await search("MARCH")).toEqual([
      ["Greeting", "Say hello to Ada in March."],
      ["Invoices", "Sum the March invoices from the shared folder, please."],
    ]);
    // A step's code and its result are searched.
    expect(await search("readCsv")).toEqual([
      ["Invoices", "I will read them. const rows = await readCsv('march.csv');"],
    ]);
    expect(await search("100%_")).toEqual([["Invoices", "Done: 100%_ of rows"]]);
    // LIKE's wildcards are the characters themselves: `%` and `_` alone match only text that holds them.
    expect(await search("_")).toEqual([["Invoices", "Done: 100%_ of rows"]]);
    // The title alone: no words to show.
    expect(await search("greet")).toEqual([["Greeting", undefined]]);
    // Case aside in every script, not only ASCII.
    const accented = await client.api.agent.threads.create.mutate({ title: "Écoles du soir" });
    expect(await search("ÉCOLES")).toEqual([["Écoles du soir", undefined]]);
    expect(await search("écoles")).toEqual([["Écoles du soir", undefined]]);
    await client.api.agent.threads.delete.mutate({ threadId: accented.id });
    // The stored JSON's keys are not what was said.
    expect(await search("tool_call_id")).toEqual([]);
    expect(await search("content")).toEqual([]);
    expect(await search("nothing like this")).toEqual([]);

    // A message stored before messages kept their text (the column empty) is found too.
    await server.app.store.sql("UPDATE agent_messages SET search = NULL").run();
    expect((await search("hello")).map(([title]) => title)).toEqual(["Greeting"]);

    // A blank query is bad input.
    await expect(client.api.agent.threads.search.query({ query: "   " })).rejects.toMatchObject({
      data: { code: "BAD_REQUEST" },
    });
  });
});
