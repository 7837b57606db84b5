/**
 * The invoke ladder's other steps and outcomes (DESIGN.md section 5): normalise, lookup, a throwing
 * implementation, waited_ms, and the audit record written for every outcome. Same test host as
 * gate.test.ts: a real `createRun` over the real spec table with in-memory implementations.
 */
import { describe, expect, it } from "vitest";
import type { Category, InvokeResult, Mode } from "../../shared/capabilities/types.ts";
import { normalise } from "../../shared/gate/invoke.ts";
import { CodedError } from "../../shared/protocol/errors.ts";
import { scriptedApprover, testHost } from "./gate-host.ts";

const READ = { name: "list_workflows", args: { limit: 5 } };
const WRITE = { name: "create_workflow", args: { name: "Quarterly report" } };

function failed(result: InvokeResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}

describe("normalise", () => {
  it("copies camelCase keys to snake_case and lifts _message", () => {
    expect(normalise({ workflowId: "wf_1", expectedVersion: 2, _message: "why" })).toEqual({
      args: { workflow_id: "wf_1", expected_version: 2 },
      message: "why",
    });
  });

  it("keeps an explicit snake_case key over its camelCase twin", () => {
    expect(normalise({ workflowId: "camel", workflow_id: "snake" })?.args).toEqual({ workflow_id: "snake" });
  });

  it("treats a missing args value as no arguments and refuses non-objects", () => {
    expect(normalise(undefined)).toEqual({ args: {} });
    expect(normalise(null)).toEqual({ args: {} });
    expect(normalise("wf_1")).toBeUndefined();
    expect(normalise(["wf_1"])).toBeUndefined();
  });

  it("drops a non-string _message and bounds a long one", () => {
    expect(normalise({ _message: 42 })).toEqual({ args: {} });
    expect(normalise({ _message: "x".repeat(2_000) })?.message).toHaveLength(500);
  });

  it("reaches the implementation through the ladder", async () => {
    using host = testHost({ mode: "auto" });
    await host.run.invoke("update_workflow", { workflowId: "wf_9", expectedVersion: 3, _message: "rename" });
    expect(host.calls[0]?.args).toEqual({ workflow_id: "wf_9", expected_version: 3 });
  });
});

describe("lookup", () => {
  it("an unknown capability names the closest names and loads nothing", async () => {
    using host = testHost({ mode: "auto" });
    const error = failed(await host.run.invoke("list_workflow", {}));
    expect(error.code).toBe("unknown_capability");
    expect(error.suggestions?.[0]).toBe("list_workflows");
    expect(error.message).toContain('"list_workflow"');
    expect(error.message).toContain('Did you mean "list_workflows"');
    expect(host.loads).toEqual([]);
  });

  it("a name far from everything gets no suggestion", async () => {
    using host = testHost({ mode: "auto" });
    const error = failed(await host.run.invoke("launch_the_rockets_at_dawn_please", {}));
    expect(error.suggestions).toEqual([]);
    expect(error.message).not.toContain("Did you mean");
  });
});

describe("a throwing implementation", () => {
  const hostile = new Error(
    "ENOENT: no such file or directory, open '/home/x/secret/file.ts'\n    at readConfig (/home/x/secret/file.ts:12:7)",
  );
  hostile.stack = `${hostile.message}\n    at load (file:///home/x/secret/loader.ts:3:1)\n    at C:\\Users\\x\\secret\\win.ts:1:1`;

  it("yields capability_failed with no path and no stack in what the guest sees", async () => {
    using host = testHost({
      mode: "auto",
      impls: {
        list_workflows: async () => {
          throw hostile;
        },
      },
    });
    const result = await host.run.invoke(READ.name, READ.args);
    const error = failed(result);
    expect(error.code).toBe("capability_failed");
    expect(error.message).toMatch(/^list_workflows failed: ENOENT/);
    const seen = JSON.stringify(result);
    for (const leak of ["/home", "secret", "file.ts", "loader.ts", "Users", "\\n", "at readConfig", "at load"]) {
      expect(seen).not.toContain(leak);
    }
    expect(host.logged).toEqual([{ capability: "list_workflows", err: hostile }]);
    expect(host.audits[0]).toMatchObject({ decision: "run", outcome: "capability_failed" });
  });

  it.each([
    "open '/home/x/~backup/secret.ts'",
    "open '/home/jürgen/secret/file.ts'",
    "open '/home/x/my (copy)/secret.ts'",
    "open 'C:\\Users\\x\\secret\\file.ts'",
    "cannot load file:///srv/app/secret/file.ts",
  ])("leaves no part of the path in %s", async (message) => {
    using host = testHost({
      mode: "auto",
      impls: {
        list_workflows: async () => {
          throw new Error(message);
        },
      },
    });
    const error = failed(await host.run.invoke(READ.name, READ.args));
    expect(error.code).toBe("capability_failed");
    expect(error.message).toContain("<path>");
    for (const leak of ["secret", "backup", "rgen", "copy", "Users", "srv", "file.ts"]) {
      expect(error.message).not.toContain(leak);
    }
  });

  it("a thrown non-Error still becomes capability_failed", async () => {
    using host = testHost({
      mode: "auto",
      impls: {
        list_workflows: async () => {
          throw { stack: "/home/x/secret/file.ts" };
        },
      },
    });
    const error = failed(await host.run.invoke(READ.name, READ.args));
    expect(error).toEqual({
      code: "capability_failed",
      message: "list_workflows failed: unexpected error",
      capability: "list_workflows",
    });
  });

  it("a CodedError keeps its code and gains the capability name", async () => {
    using host = testHost({
      mode: "auto",
      impls: {
        get_workflow: async () => {
          throw new CodedError({ code: "capability_unavailable", message: "The store is closed." });
        },
      },
    });
    const error = failed(await host.run.invoke("get_workflow", { workflow_id: "wf_1" }));
    expect(error).toEqual({
      code: "capability_unavailable",
      message: "The store is closed.",
      capability: "get_workflow",
    });
    expect(host.logged).toEqual([]);
  });
});

describe("waited_ms", () => {
  it("is absent when nothing prompted", async () => {
    using host = testHost({ mode: "auto" });
    expect(await host.run.invoke(READ.name, READ.args)).not.toHaveProperty("waited_ms");
    expect(await host.run.invoke(WRITE.name, WRITE.args)).not.toHaveProperty("waited_ms");
    expect(await host.run.invoke("create_workflow", {})).not.toHaveProperty("waited_ms");
    expect(await host.run.invoke(WRITE.name, WRITE.args)).not.toHaveProperty("approval_ms");
  });

  it("reports the time spent waiting for the person", async () => {
    const delay = 30;
    using host = testHost({
      approver: {
        ask: async (request) => {
          await new Promise((resolve) => setTimeout(resolve, delay));
          return { kind: "answer", answer: "allow", approval_id: request.approval_id, hash: request.hash };
        },
      },
    });
    const result = await host.run.invoke(WRITE.name, WRITE.args);
    expect(result.ok).toBe(true);
    expect(result.waited_ms).toBeGreaterThanOrEqual(delay - 5);
    expect(result.approval_ms).toBe(result.waited_ms);
    expect(host.audits[0]?.waited_ms).toBeGreaterThanOrEqual(delay - 5);
  });
});

describe("validate", () => {
  it("refuses an argument the capability does not take, naming the closest it does, before anything loads or asks", async () => {
    const approval = scriptedApprover("allow");
    using host = testHost({ approver: approval.approver });
    const error = failed(await host.run.invoke("create_workflow", { name: "Report", grpah: { nodes: [], edges: [] } }));
    expect(error.code).toBe("invalid_tool_arguments");
    expect(error.message).toBe(
      "Invalid arguments for create_workflow: grpah: not an argument of create_workflow (did you mean graph?); it takes name, description, graph",
    );
    expect(error.issues).toHaveLength(1);
    expect(approval.requests).toEqual([]);
    expect(host.loads).toEqual([]);
    // Each stray argument is named; one with nothing close gets no guess.
    const two = failed(await host.run.invoke("list_workflows", { limt: 3, zzzzzzzzzz: 1 }));
    expect(two.issues).toEqual([
      "limt: not an argument of list_workflows (did you mean limit?); it takes limit, offset, query",
      "zzzzzzzzzz: not an argument of list_workflows; it takes limit, offset, query",
    ]);
    // A capability that takes no arguments says so.
    expect(failed(await host.run.invoke("list_models", { all: true })).message).toContain("it takes none");
  });
});

describe("audit", () => {
  const scenarios: {
    title: string;
    mode?: Mode;
    answer?: "allow" | "allow_for_session" | "deny";
    call: [string, unknown];
    before?: [string, unknown];
    expected: { category: Category | null; decision: string; outcome: string };
  }[] = [
    { title: "read ok", call: [READ.name, READ.args], expected: { category: "read", decision: "run", outcome: "ok" } },
    {
      title: "unknown capability",
      call: ["no_such_thing", {}],
      expected: { category: null, decision: "refused", outcome: "unknown_capability" },
    },
    {
      title: "invalid arguments",
      call: ["create_workflow", {}],
      expected: { category: "write", decision: "refused", outcome: "invalid_tool_arguments" },
    },
    {
      title: "blocked in plan mode",
      mode: "plan",
      call: [WRITE.name, WRITE.args],
      expected: { category: "write", decision: "block", outcome: "blocked_in_plan_mode" },
    },
    {
      title: "asked and allowed",
      answer: "allow",
      call: [WRITE.name, WRITE.args],
      expected: { category: "write", decision: "ask", outcome: "ok" },
    },
    {
      title: "asked and denied",
      answer: "deny",
      call: [WRITE.name, WRITE.args],
      expected: { category: "write", decision: "ask", outcome: "permission_denied" },
    },
    {
      title: "allowed by the session",
      answer: "allow_for_session",
      before: [WRITE.name, WRITE.args],
      call: [WRITE.name, WRITE.args],
      expected: { category: "write", decision: "allowed_by_session", outcome: "ok" },
    },
    {
      title: "auto mode write",
      mode: "auto",
      call: ["save_memory", { content: "x" }],
      expected: { category: "write", decision: "run", outcome: "ok" },
    },
  ];

  it.each(scenarios)("$title", async ({ mode, answer, call, before, expected }) => {
    const approval = scriptedApprover(answer ?? "allow");
    using host = testHost({ ...(mode ? { mode } : {}), approver: approval.approver });
    if (before) await host.run.invoke(...before);
    const count = host.audits.length;
    await host.run.invoke(...call);
    expect(host.audits).toHaveLength(count + 1);
    const record = host.audits.at(-1);
    expect(record).toMatchObject({
      actor: "agent",
      run_id: "run_1",
      session_id: "ses_1",
      capability: call[0],
      ...expected,
    });
    expect(record?.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("records an ended run, a monitor block and a failure too", async () => {
    const boom = async () => {
      throw new Error("boom");
    };
    using host = testHost({
      mode: "auto",
      monitor: (call) => (call.capability === "delete_memory" ? { allow: false, reason: "no" } : { allow: true }),
      impls: { save_memory: boom },
    });
    await host.run.invoke("delete_memory", { memory_id: "m" });
    await host.run.invoke("save_memory", { content: "x" });
    host.end();
    await host.run.invoke(READ.name, READ.args);
    expect(host.audits.map((a) => [a.capability, a.decision, a.outcome])).toEqual([
      ["delete_memory", "run", "blocked_by_security_monitor"],
      ["save_memory", "run", "capability_failed"],
      ["list_workflows", "refused", "run_ended"],
    ]);
  });
});
