/** A conversation as Markdown (the panel's `Export`): what a person reads back, in order. */
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../shared/agent/messages.ts";
import { fenced, transcriptMarkdown } from "../../shared/agent/transcript.ts";

const step = (id: string, code: string, title: string) => ({
  id,
  name: "execute_code",
  arguments: JSON.stringify({ risk: "low", description: `run ${title}`, title, code }),
});

describe("a conversation as Markdown", () => {
  it("has each request, the agent's text, each step's code and outcome, and why a request ended early", () => {
    const messages: AgentMessage[] = [
      { role: "user", content: [{ type: "text", text: "how many workflows?" }] },
      { role: "assistant", text: "Let me look.", tool_calls: [step("c1", "export default 2;", "Count")] },
      {
        role: "tool",
        tool_call_id: "c1",
        name: "execute_code",
        content: [{ type: "text", text: "2" }],
        observation: {
          ok: true,
          result: { count: 2 },
          logs: ["found 2"],
          calls: [{ capability: "workflows.list", ok: true, ms: 3 }],
          duration_ms: 12,
          approval_ms: 1500,
        },
      },
      { role: "assistant", text: "You have **2**.", tool_calls: [] },
      { role: "user", content: [{ type: "text", text: "delete them" }] },
      { role: "assistant", text: "", tool_calls: [{ id: "c2", name: "shell", arguments: "{}" }] },
      {
        role: "tool",
        tool_call_id: "c2",
        name: "shell",
        content: [{ type: "text", text: "There is no tool" }],
        is_error: true,
      },
      {
        role: "assistant",
        text: "",
        tool_calls: [],
        ended: { status: "stopped", message: "Stopped by you." },
      },
    ];
    expect(transcriptMarkdown("Counting", messages)).toBe(
      `${[
        "# Counting",
        "## You",
        "how many workflows?",
        "## Agent",
        "Let me look.",
        "**Step: Count**",
        "```js\nexport default 2;\n```",
        "ok in 12 ms · waited 1.5 s for approval",
        '```json\n{\n  "count": 2\n}\n```',
        "Logs:\n\n```\nfound 2\n```",
        "- workflows.list: ok (3 ms)",
        "You have **2**.",
        "## You",
        "delete them",
        "## Agent",
        '**shell** (not run: There is no tool "shell". The tools are execute_code (run one JavaScript action) and view_image (look at an image asset).)',
        "Tool error: There is no tool",
        "_Stopped by you._",
      ].join("\n\n")}\n`,
    );
  });

  it("fences code that holds backticks with a longer fence", () => {
    expect(fenced("a ``` b", "js")).toBe("````js\na ``` b\n````");
    expect(fenced("plain\n")).toBe("```\nplain\n```");
  });
});
