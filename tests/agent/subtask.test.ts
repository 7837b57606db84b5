/**
 * The agent's own capabilities: `models.list` (the configured providers' models) and
 * `agents.run_subtask` (a child agent on the server) against a scripted model server: the child's
 * actions run through the parent session's gate (its writes ask the same approver), a read-only
 * child's writes are blocked, a child cannot start children, and ending the parent's run stops it.
 */
import { describe, expect, it } from "vitest";
import type { AgentConfig } from "../../server-bridge/config.ts";
import { openLocalRun } from "../../server-bridge/runs/local.ts";
import { ScriptedApprover } from "../support/approver.ts";
import { type FakeModelServer, startFakeOpenAI } from "../support/fake-models.ts";
import { startTestServer } from "../support/server.ts";

function agent(fake?: FakeModelServer): AgentConfig {
  return {
    ...(fake ? { openaiBaseUrl: fake.url, openaiApiKey: "sk-test" } : {}),
    stepTokens: 500,
    threadTokens: 100_000,
    dailyTokens: 100_000,
    stepCap: 20,
  };
}

const act = (code: string) => ({
  tool_calls: [{ name: "execute_code", arguments: JSON.stringify({ risk: "low", description: "a step", code }) }],
});
const CREATE =
  'import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";\nexport default (await workflows.create("from the child")).name;';

describe("the agent's capabilities", () => {
  it("lists the configured models, and says what to set when there are none", async () => {
    await using fake = await startFakeOpenAI();
    await using server = await startTestServer({ agent: agent(fake) });
    const local = await openLocalRun(server.app, { mode: "auto" });
    const listed = await local.live.run.invoke("list_models", {});
    expect(listed).toMatchObject({
      ok: true,
      value: {
        configured: true,
        models: [
          { id: "openai:gpt-fake-1", provider: "openai", default: true },
          { id: "openai:gpt-fake-mini", default: false },
        ],
      },
    });
    await local.end();

    await using bare = await startTestServer({ agent: agent() });
    const none = await openLocalRun(bare.app, { mode: "auto" });
    expect(await none.live.run.invoke("list_models", {})).toMatchObject({
      ok: true,
      value: { configured: false, models: [], hint: expect.stringContaining("OPENAI_BASE_URL") },
    });
    expect(await none.live.run.invoke("run_subtask", { task: "anything" })).toMatchObject({
      ok: false,
      error: { code: "capability_unavailable" },
    });
    await none.end();
  });

  it("runs a child agent through the parent's gate: its write asks the same approver, and its answer comes back", async () => {
    await using fake = await startFakeOpenAI({ script: [act(CREATE), { text: "Made the workflow." }] });
    await using server = await startTestServer({ agent: agent(fake) });
    const approver = new ScriptedApprover("allow");
    const local = await openLocalRun(server.app, { mode: "default", approver });
    const result = await local.live.run.invoke("run_subtask", { task: "make a workflow", steps: 3 });
    expect(result).toMatchObject({ ok: true, value: { status: "final", answer: "Made the workflow.", steps: 1 } });
    // The child's credit reached the call's answer (the parent's deadline does not count it).
    expect(result.waited_ms).toBeGreaterThan(0);
    // Of it, only the person's answer to run_subtask's own approval was a wait for approval.
    expect(result.approval_ms ?? 0).toBeLessThan(result.waited_ms ?? 0);
    expect(approver.asked.map((r) => r.capability)).toEqual(["run_subtask", "create_workflow"]);
    expect(await server.app.store.sql("SELECT name FROM workflows").all()).toEqual([{ name: "from the child" }]);
    const threadId = result.ok ? (result.value as { thread_id: string }).thread_id : "";
    const child = (await server.app.agent.threads.messages("local", threadId)).map((m) => m.message.role);
    expect(child).toEqual(["user", "assistant", "tool", "assistant"]);
    await local.end();
  });

  it("counts the child's tokens in the budget of the conversation that started it", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        { ...act("export default 1;"), usage: { input_tokens: 300, output_tokens: 20 } },
        { text: "Done.", usage: { input_tokens: 400, output_tokens: 10 } },
        { text: "never asked", usage: { input_tokens: 1, output_tokens: 1 } },
      ],
    });
    await using server = await startTestServer({ agent: { ...agent(fake), threadTokens: 700 } });
    const threads = server.app.agent.threads;
    const parent = await threads.create("local", "the parent");
    const local = await openLocalRun(server.app, { mode: "auto", threadId: parent.id });
    const result = await local.live.run.invoke("run_subtask", { task: "count", steps: 3 });
    expect(result).toMatchObject({
      ok: true,
      value: { status: "final", usage: { input_tokens: 700, output_tokens: 30 } },
    });
    expect((await threads.require("local", parent.id)).usage).toEqual({ input_tokens: 700, output_tokens: 30 });
    expect(await threads.usedToday("local")).toBe(730);

    // The parent's conversation is near its budget now: a second child stops at its first turn, unasked.
    const again = await local.live.run.invoke("run_subtask", { task: "count again", steps: 3 });
    expect(again).toMatchObject({
      ok: true,
      value: { status: "failed", answer: expect.stringContaining("AGENT_THREAD_TOKENS") },
    });
    await local.end();
    expect(fake.requests).toHaveLength(2);
  });

  it("refuses to start a run charged to a conversation that is not the caller's", async () => {
    await using server = await startTestServer({ agent: agent() });
    const { sessionId } = await server.script.session.create.mutate({});
    await expect(server.script.run.start.mutate({ sessionId, threadId: "thr_someone_else" })).rejects.toMatchObject({
      data: { error: { code: "unauthorized" } },
    });
    const own = await server.app.agent.threads.create("local", "mine");
    expect(await server.script.run.start.mutate({ sessionId, threadId: own.id })).toMatchObject({
      runId: expect.any(String),
    });
  });

  it("keeps a read-only child from writing, and a child cannot start children", async () => {
    await using fake = await startFakeOpenAI({
      script: [
        act(CREATE),
        act(
          'import { agents } from "@nodetool-ai/sandbox-nodetool/agents";\nexport default await agents.run("again");',
        ),
        { text: "I could not." },
      ],
    });
    await using server = await startTestServer({ agent: agent(fake) });
    const local = await openLocalRun(server.app, { mode: "auto" });
    const result = await local.live.run.invoke("run_subtask", { task: "try things", read_only: true });
    expect(result).toMatchObject({ ok: true, value: { status: "final", steps: 2 } });
    const threadId = result.ok ? (result.value as { thread_id: string }).thread_id : "";
    const observations = (await server.app.agent.threads.messages("local", threadId)).flatMap((m) =>
      m.message.role === "tool" && m.message.observation ? [m.message.observation] : [],
    );
    expect(observations.map((o) => o.error?.code)).toEqual(["blocked_in_plan_mode", "import_refused"]);
    // Read-only is not a mode the person could change: the model is not told to ask for another.
    expect(observations[0]?.error?.message).toContain("Plan is the highest mode this session may have");
    expect(observations[0]?.error?.message).not.toContain("switch mode");
    expect(await server.app.store.sql("SELECT count(*) AS n FROM workflows").get()).toEqual({ n: 0 });
    await local.end();
  });

  it("stops the child when the parent's run ends", async () => {
    await using fake = await startFakeOpenAI({ script: [act("while (true) {}"), { text: "never" }] });
    await using server = await startTestServer({ agent: agent(fake) });
    const local = await openLocalRun(server.app, { mode: "auto" });
    const pending = local.live.run.invoke("run_subtask", { task: "spin" });
    await expect.poll(() => fake.requests.length, { timeout: 20_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await local.end();
    const result = await pending;
    expect(result.ok ? (result.value as { status: string }).status : result.error.code).toMatch(/stopped|run_ended/);
    expect(fake.requests).toHaveLength(1);
  });
});
