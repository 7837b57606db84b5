/**
 * The CodeAct loop on its own (shared/agent/loop.ts), with a scripted model client (a model cannot
 * run here) and a recording executor: what the loop sends, how it reads what the model wrote, and
 * when it stops. The full path, with real providers' wire formats, is in agent.test.ts and the e2e.
 */
import { describe, expect, it } from "vitest";
import { runAgent, withToolResults } from "../../shared/agent/loop.ts";
import type { AgentMessage, ModelClient, ModelEvent } from "../../shared/agent/messages.ts";
import type { Observation } from "../../shared/protocol/worker.ts";

type Turn = ModelEvent[] | ((messages: readonly AgentMessage[]) => ModelEvent[]);

function scripted(turns: Turn[]): ModelClient & { seen: AgentMessage[][] } {
  const seen: AgentMessage[][] = [];
  return {
    seen,
    async *stream({ messages, signal }) {
      seen.push([...messages]);
      const turn = turns.shift() ?? [
        { type: "text", delta: "done." },
        { type: "done", stop: "end" },
      ];
      for (const event of typeof turn === "function" ? turn(messages) : turn) {
        if (signal.aborted) return;
        await Promise.resolve();
        yield event;
      }
    },
  };
}

const call = (id: string, name: string, args: unknown): ModelEvent => ({
  type: "tool_call",
  call: { id, name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
});
const done = (stop: "end" | "tool_calls" = "tool_calls"): ModelEvent => ({ type: "done", stop });
const answer = (text: string): ModelEvent[] => [{ type: "text", delta: text }, done("end")];
const ok = (result: unknown): Observation => ({ ok: true, result, logs: [], calls: [], duration_ms: 1 });

function recorder() {
  const ran: string[] = [];
  return {
    ran,
    execute: async (code: string) => {
      ran.push(code);
      return { observation: ok(ran.length) };
    },
    viewImage: async () => ({ content: [{ type: "text" as const, text: "an image" }] }),
  };
}

const base = { history: [], signal: new AbortController().signal };

describe("the CodeAct loop", () => {
  it("runs an action, returns its observation as the tool result, and ends on the final answer", async () => {
    const model = scripted([
      [
        { type: "text", delta: "Let me look." },
        call("c1", "execute_code", { risk: "low", description: "list", code: "export default 1;" }),
        done(),
      ],
      answer("You have one."),
    ]);
    const exec = recorder();
    const outcome = await runAgent({ ...base, ...exec, model, request: "how many?" });
    expect(outcome).toMatchObject({ status: "final", answer: "You have one.", steps: 1 });
    expect(exec.ran).toEqual(["export default 1;"]);
    const second = model.seen[1] ?? [];
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(second[2]).toMatchObject({ role: "tool", tool_call_id: "c1", observation: { ok: true, result: 1 } });
  });

  it("turns malformed output into tool errors the model reads: bad JSON, unknown tool, empty code; strips fences", async () => {
    const model = scripted([
      [
        call("a", "execute_code", "{not json"),
        call("b", "run_shell", { cmd: "ls" }),
        call("c", "execute_code", { risk: "low", description: "x", code: "   " }),
        call("d", "execute_code", { code: "```js\nexport default 2;\n```" }),
        done(),
      ],
      answer("ok"),
    ]);
    const exec = recorder();
    const outcome = await runAgent({ ...base, ...exec, model, request: "go" });
    expect(outcome.status).toBe("final");
    expect(exec.ran).toEqual(["export default 2;"]);
    const tools = outcome.added.filter((m) => m.role === "tool");
    const text = (m: AgentMessage) => (m.role === "tool" && m.content[0]?.type === "text" ? m.content[0].text : "");
    expect(text(tools[0] as AgentMessage)).toMatch(/^invalid_tool_arguments: .*not valid JSON/);
    expect(text(tools[1] as AgentMessage)).toMatch(/^invalid_call: There is no tool "run_shell"/);
    expect(text(tools[2] as AgentMessage)).toMatch(/^invalid_tool_arguments: execute_code got an empty code/);
    expect(tools[3]).toMatchObject({ observation: { ok: true } });
  });

  it("stops at the step cap: calls past it are refused, the model gets one turn to answer", async () => {
    const act = (id: string) =>
      call(id, "execute_code", { risk: "low", description: "a", code: `export default "${id}";` });
    const model = scripted([[act("1"), act("2"), done()], [act("3"), done()], answer("summary")]);
    const exec = recorder();
    const outcome = await runAgent({ ...base, ...exec, model, request: "loop", stepCap: 2 });
    expect(outcome).toMatchObject({ status: "final", answer: "summary", steps: 2 });
    expect(exec.ran).toHaveLength(2);
    const refused = outcome.added.find((m) => m.role === "tool" && m.tool_call_id === "3");
    expect(refused).toMatchObject({ is_error: true });

    const stubborn = scripted([
      [act("1"), done()],
      [act("2"), done()],
      [act("3"), done()],
    ]);
    const capped = await runAgent({ ...base, ...recorder(), model: stubborn, request: "loop", stepCap: 1 });
    expect(capped.status).toBe("step_cap");
  });

  it("stops on the token budget, on Stop, and on a cut stream, keeping what was said", async () => {
    const usage: ModelEvent = { type: "usage", usage: { input_tokens: 600, output_tokens: 500 } };
    const spend = scripted([
      [usage, call("1", "execute_code", { code: "export default 1;" }), done()],
      answer("never"),
    ]);
    expect((await runAgent({ ...base, ...recorder(), model: spend, request: "x", tokenBudget: 1000 })).status).toBe(
      "budget",
    );

    const stop = new AbortController();
    const slow: ModelClient = {
      async *stream({ signal }) {
        yield { type: "text", delta: "thinking" };
        stop.abort();
        if (signal.aborted) return;
        yield done("end");
      },
    };
    const stopped = await runAgent({ ...recorder(), history: [], model: slow, request: "x", signal: stop.signal });
    expect(stopped.status).toBe("stopped");
    expect(stopped.added.at(-1)).toMatchObject({ role: "assistant", text: "thinking", interrupted: true });

    const cut = scripted([[{ type: "text", delta: "half an ans" }]]);
    const failed = await runAgent({ ...base, ...recorder(), model: cut, request: "x" });
    expect(failed.status).toBe("failed");
    expect(failed.answer).toMatch(/cut off/);
    expect(failed.added.at(-1)).toMatchObject({ role: "assistant", interrupted: true });
  });

  it("answers tool calls a stored conversation left without results (an interrupted step)", () => {
    const history: AgentMessage[] = [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", text: "", tool_calls: [{ id: "x", name: "execute_code", arguments: "{}" }] },
    ];
    const fixed = withToolResults(history);
    expect(fixed).toHaveLength(3);
    expect(fixed[2]).toMatchObject({ role: "tool", tool_call_id: "x", is_error: true });
    expect(withToolResults(fixed)).toEqual(fixed);
  });
});
