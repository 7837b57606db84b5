/**
 * The invoke ladder and the permission gate (DESIGN.md section 5), driven through a real
 * `createRun` over the real spec table. Implementations are in-memory; the test host counts
 * every `loadImpl`, prompt, monitor call and audit record, so each test asserts what the ladder
 * did, not what it returned alone.
 */
import { describe, expect, it } from "vitest";
import { CATEGORIES, type Category, type InvokeResult, MODES, type Mode } from "../../shared/capabilities/types.ts";
import { type ApprovalOutcome, type Approver, approvalHash } from "../../shared/gate/approvals.ts";
import { type Decision, decide } from "../../shared/gate/decide.ts";
import { HEADLESS_DENIAL, headlessGate } from "../../shared/gate/headless.ts";
import { argSwappingApprover, replayingApprover, scriptedApprover, silentApprover, testHost } from "./gate-host.ts";

/** DESIGN.md section 5, step 4, written out independently of shared/gate/decide.ts. */
const EXPECTED: Record<Mode, Record<Category, Decision>> = {
  plan: { read: "run", write: "block", execute: "block", external: "block" },
  default: { read: "run", write: "ask", execute: "ask", external: "ask" },
  auto: { read: "run", write: "run", execute: "run", external: "run" },
};

const READ = { name: "list_workflows", args: { limit: 5 } };
const WRITE = { name: "create_workflow", args: { name: "Quarterly report" } };

function failed(result: InvokeResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}

describe("decide: the 3 x 4 matrix", () => {
  const cells = MODES.flatMap((mode) => CATEGORIES.map((category) => ({ mode, category })));

  it("covers all twelve cells", () => {
    expect(cells).toHaveLength(12);
  });

  it.each(cells)("$mode x $category", ({ mode, category }) => {
    expect(decide(mode, category)).toBe(EXPECTED[mode][category]);
    expect(decide(mode, category, "agent")).toBe(EXPECTED[mode][category]);
  });

  it.each(cells)("a user-actor call in $mode x $category is never prompted or blocked", ({ mode, category }) => {
    expect(decide(mode, category, "user")).toBe("run");
  });
});

describe("the ladder over the matrix (read and write capabilities in the table)", () => {
  const cases = MODES.flatMap((mode) => [
    { mode, category: "read" as const, call: READ },
    { mode, category: "write" as const, call: WRITE },
  ]);

  it.each(cases)("$mode x $category", async ({ mode, category, call }) => {
    const approval = scriptedApprover("allow");
    using host = testHost({ mode, approver: approval.approver });
    const result = await host.run.invoke(call.name, call.args);
    const expected = EXPECTED[mode][category];

    expect(approval.requests).toHaveLength(expected === "ask" ? 1 : 0);
    if (expected === "block") {
      expect(failed(result).code).toBe("blocked_in_plan_mode");
      expect(host.loads).toEqual([]);
      expect(host.calls).toEqual([]);
    } else {
      expect(result.ok).toBe(true);
      expect(host.calls.map((c) => c.capability)).toEqual([call.name]);
    }
    expect(host.audits).toHaveLength(1);
    expect(host.audits[0]?.decision).toBe(expected);
  });
});

describe("read fast path", () => {
  it.each(MODES)("a read in %s mode runs with no prompt and no monitor call", async (mode) => {
    const approval = scriptedApprover("deny");
    using host = testHost({ mode, approver: approval.approver, monitor: () => ({ allow: false, reason: "no" }) });
    const result = await host.run.invoke("get_workflow", { workflow_id: "wf_none" });
    expect(result).toEqual({ ok: true, value: null });
    expect(approval.requests).toEqual([]);
    expect(host.monitorCalls).toEqual([]);
    expect(host.calls).toEqual([{ capability: "get_workflow", args: { workflow_id: "wf_none" } }]);
  });

  it("a non-read call does reach the monitor, after approval, and the monitor can block it", async () => {
    const approval = scriptedApprover("allow");
    using host = testHost({
      approver: approval.approver,
      monitor: () => ({ allow: false, reason: "bulk deletion looks unusual" }),
    });
    const error = failed(await host.run.invoke("delete_workflow", { workflow_id: "wf_1" }));
    expect(error.code).toBe("blocked_by_security_monitor");
    expect(error.message).toContain("bulk deletion looks unusual");
    expect(approval.requests).toHaveLength(1);
    expect(host.monitorCalls).toEqual([{ capability: "delete_workflow", args: { workflow_id: "wf_1" } }]);
    expect(host.loads).toEqual([]);
  });
});

describe("validation comes before any prompt", () => {
  it.each(MODES)("a malformed write in %s mode never prompts and never loads the implementation", async (mode) => {
    const approval = scriptedApprover("allow");
    using host = testHost({ mode, approver: approval.approver });
    const error = failed(await host.run.invoke("create_workflow", { name: 42 }));
    expect(error.code).toBe("invalid_tool_arguments");
    expect(error.issues?.[0]).toMatch(/^name: /);
    expect(error.message).toContain("create_workflow");
    expect(approval.requests).toEqual([]);
    expect(host.loads).toEqual([]);
    expect(host.monitorCalls).toEqual([]);
  });

  it("a missing required field is named by its path", async () => {
    using host = testHost({ mode: "auto" });
    const error = failed(await host.run.invoke("delete_memory", {}));
    expect(error.issues).toEqual([expect.stringMatching(/^memory_id: /)]);
    expect(host.loads).toEqual([]);
  });

  it("args that are not an object are refused without loading anything", async () => {
    using host = testHost({ mode: "auto" });
    for (const bad of ["wf_1", 7, ["wf_1"]]) {
      expect(failed(await host.run.invoke("get_workflow", bad)).code).toBe("invalid_tool_arguments");
    }
    expect(host.loads).toEqual([]);
  });
});

describe("plan mode", () => {
  it("blocks every write capability without loading its implementation", async () => {
    const approval = scriptedApprover("allow");
    using host = testHost({ mode: "plan", approver: approval.approver });
    const writes: [string, Record<string, unknown>][] = [
      ["create_workflow", { name: "x" }],
      ["update_workflow", { workflow_id: "wf_1", name: "y" }],
      ["delete_workflow", { workflow_id: "wf_1" }],
      ["save_memory", { content: "remember this" }],
      ["delete_memory", { memory_id: "mem_1" }],
    ];
    for (const [name, args] of writes) {
      const error = failed(await host.run.invoke(name, args));
      expect(error.code).toBe("blocked_in_plan_mode");
      expect(error.message).toMatch(/plan mode/);
    }
    expect(host.loads).toEqual([]);
    expect(approval.requests).toEqual([]);
    expect(host.monitorCalls).toEqual([]);
  });

  it("follows the gate's mode at call time", async () => {
    using host = testHost({ mode: "plan" });
    expect(failed(await host.run.invoke(WRITE.name, WRITE.args)).code).toBe("blocked_in_plan_mode");
    host.setMode("auto");
    expect((await host.run.invoke(WRITE.name, WRITE.args)).ok).toBe(true);
  });
});

describe("asking", () => {
  it("sends the approver the call it is about to run", async () => {
    const approval = scriptedApprover("allow");
    using host = testHost({ approver: approval.approver });
    await host.run.invoke("create_workflow", { name: "Invoices", _message: "The user asked for an invoices flow" });
    const request = approval.requests[0];
    expect(request).toMatchObject({
      run_id: "run_1",
      capability: "create_workflow",
      category: "write",
      message: 'Create workflow "Invoices"',
      agent_message: "The user asked for an invoices flow",
      args: { name: "Invoices", description: "", graph: { nodes: [], edges: [] } },
    });
    expect(request?.approval_id).toMatch(/^apr_/);
    expect(request?.hash).toBe(await approvalHash("run_1", "create_workflow", request?.args));
    expect(host.calls[0]?.args).not.toHaveProperty("_message");
  });

  it("allow runs once; the next call of the same name asks again", async () => {
    const approval = scriptedApprover("allow");
    using host = testHost({ approver: approval.approver });
    expect((await host.run.invoke(WRITE.name, WRITE.args)).ok).toBe(true);
    expect((await host.run.invoke(WRITE.name, WRITE.args)).ok).toBe(true);
    expect(approval.requests).toHaveLength(2);
    expect(host.allowSet.list()).toEqual([]);
  });

  it("allow_for_session skips the second prompt for the same name only", async () => {
    const approval = scriptedApprover("allow_for_session", "allow");
    using host = testHost({ approver: approval.approver });
    expect((await host.run.invoke("create_workflow", { name: "a" })).ok).toBe(true);
    expect(host.allowSet.list()).toEqual(["create_workflow"]);

    const second = await host.run.invoke("create_workflow", { name: "b" });
    expect(second.ok).toBe(true);
    expect(second).not.toHaveProperty("waited_ms");
    expect(approval.requests).toHaveLength(1);
    expect(host.audits[1]?.decision).toBe("allowed_by_session");

    expect((await host.run.invoke("delete_workflow", { workflow_id: "wf_1" })).ok).toBe(true);
    expect(approval.requests.map((r) => r.capability)).toEqual(["create_workflow", "delete_workflow"]);
    expect(host.calls.map((c) => c.capability)).toEqual(["create_workflow", "create_workflow", "delete_workflow"]);
  });

  it("a revoked name prompts again", async () => {
    const approval = scriptedApprover("allow_for_session");
    using host = testHost({ approver: approval.approver });
    await host.run.invoke(WRITE.name, WRITE.args);
    host.allowSet.delete(WRITE.name);
    await host.run.invoke(WRITE.name, WRITE.args);
    expect(approval.requests).toHaveLength(2);
  });

  it("deny answers permission_denied and does not run the implementation", async () => {
    const approval = scriptedApprover("deny");
    using host = testHost({ approver: approval.approver });
    const result = await host.run.invoke("delete_workflow", { workflow_id: "wf_1" });
    expect(result).toEqual({
      ok: false,
      error: {
        code: "permission_denied",
        message: expect.stringMatching(/denied delete_workflow/),
        capability: "delete_workflow",
      },
      waited_ms: expect.any(Number),
      approval_ms: expect.any(Number),
    });
    expect(host.loads).toEqual([]);
    expect(host.monitorCalls).toEqual([]);
  });

  it("no answer within the approval timeout is approval_timeout, not permission_denied", async () => {
    const approval = silentApprover();
    using host = testHost({ approver: approval.approver, approvalTimeoutMs: 20 });
    const result = await host.run.invoke(WRITE.name, WRITE.args);
    const error = failed(result);
    expect(error.code).toBe("approval_timeout");
    expect(error.message).toMatch(/in time/);
    expect(result.waited_ms).toBeGreaterThanOrEqual(15);
    expect(approval.signals[0]?.aborted).toBe(true);
    expect(approval.signals[0]?.reason).toBe("timeout");
    expect(host.loads).toEqual([]);
    expect(host.audits[0]).toMatchObject({ decision: "ask", outcome: "approval_timeout" });
  });

  it("answers a timed-out or ended wait only once the approver has recorded it (a stored approval is settled first)", async () => {
    for (const ending of ["timeout", "run_ended"] as const) {
      const recorded: string[] = [];
      // An approver whose record of the gate giving up takes a while (a store's update under load).
      const approver: Approver = {
        ask: (_request, signal) =>
          new Promise<ApprovalOutcome>((resolve) => {
            signal.addEventListener("abort", () => {
              setTimeout(() => {
                recorded.push(String(signal.reason));
                resolve({ kind: "timeout" });
              }, 30);
            });
          }),
      };
      using host = testHost({ approver, approvalTimeoutMs: ending === "timeout" ? 20 : 60_000 });
      const pending = host.run.invoke(WRITE.name, WRITE.args);
      if (ending === "run_ended") setTimeout(() => host.end(), 20);
      const error = failed(await pending);
      expect(error.code).toBe(ending === "timeout" ? "approval_timeout" : "run_ended");
      expect(recorded).toEqual([ending]);
    }
  });

  it("an ended run stops the wait with run_ended and tells the approver", async () => {
    const approval = silentApprover();
    using host = testHost({ approver: approval.approver });
    const pending = host.run.invoke(WRITE.name, WRITE.args);
    await expect.poll(() => approval.requests.length).toBe(1);
    host.end();
    expect(failed(await pending).code).toBe("run_ended");
    expect(approval.signals[0]?.aborted).toBe(true);
    expect(host.loads).toEqual([]);
  });

  it("a run that ends while the approval is being prepared never shows the prompt", async () => {
    const approval = silentApprover();
    using host = testHost({ approver: approval.approver, approvalTimeoutMs: 1_000 });
    const pending = host.run.invoke(WRITE.name, WRITE.args);
    host.end();
    expect(failed(await pending).code).toBe("run_ended");
    expect(approval.requests).toEqual([]);
    expect(host.loads).toEqual([]);
  });

  it("a replayed approval (an id already consumed) is refused and the implementation does not run", async () => {
    const approval = replayingApprover();
    using host = testHost({ approver: approval.approver });
    expect((await host.run.invoke(WRITE.name, WRITE.args)).ok).toBe(true);
    const error = failed(await host.run.invoke(WRITE.name, WRITE.args));
    expect(error.code).toBe("permission_denied");
    expect(error.message).toMatch(/single-use/);
    expect(approval.requests).toHaveLength(2);
    expect(approval.requests[0]?.hash).toBe(approval.requests[1]?.hash);
    expect(host.calls).toHaveLength(1);
  });

  it("an answer bound to other arguments (arg swap) is refused and the implementation does not run", async () => {
    const approval = argSwappingApprover((args) => ({ ...args, name: "Something else" }));
    using host = testHost({ approver: approval.approver });
    const error = failed(await host.run.invoke(WRITE.name, WRITE.args));
    expect(error.code).toBe("permission_denied");
    expect(approval.requests).toHaveLength(1);
    expect(host.loads).toEqual([]);
    expect(host.calls).toEqual([]);
    expect(host.allowSet.list()).toEqual([]);
  });

  it("the approval hash ignores key order but not values or the run", async () => {
    const a = await approvalHash("run_1", "create_workflow", { name: "x", description: "" });
    expect(await approvalHash("run_1", "create_workflow", { description: "", name: "x" })).toBe(a);
    expect(await approvalHash("run_1", "create_workflow", { description: "", name: "y" })).not.toBe(a);
    expect(await approvalHash("run_2", "create_workflow", { name: "x", description: "" })).not.toBe(a);
  });
});

describe("actors", () => {
  it.each(["default", "plan"] as const)("a user-actor write in %s mode never prompts", async (mode) => {
    const approval = scriptedApprover("deny");
    using host = testHost({ mode, approver: approval.approver });
    const result = await host.run.invoke("delete_workflow", { workflow_id: "wf_1" }, { actor: "user" });
    expect(result.ok).toBe(true);
    expect(result).not.toHaveProperty("waited_ms");
    expect(approval.requests).toEqual([]);
    expect(host.audits[0]).toMatchObject({ actor: "user", decision: "run", outcome: "ok" });
  });

  it("the same call as the agent prompts", async () => {
    const approval = scriptedApprover("deny");
    using host = testHost({ approver: approval.approver });
    const error = failed(await host.run.invoke("delete_workflow", { workflow_id: "wf_1" }));
    expect(error.code).toBe("permission_denied");
    expect(host.audits[0]).toMatchObject({ actor: "agent", decision: "ask" });
  });
});

describe("the headless gate", () => {
  it("runs reads", async () => {
    using host = testHost({ gate: headlessGate() });
    expect(host.gate.mode()).toBe("default");
    expect(await host.run.invoke(READ.name, READ.args)).toEqual({ ok: true, value: [] });
  });

  it("denies writes with a message that names how to configure a mode", async () => {
    using host = testHost({ gate: headlessGate() });
    const error = failed(await host.run.invoke(WRITE.name, WRITE.args));
    expect(error.code).toBe("permission_denied");
    expect(error.message).toBe(HEADLESS_DENIAL);
    expect(error.message).toMatch(/--mode auto/);
    expect(host.loads).toEqual([]);
  });

  it("runs writes once the host configures auto mode", async () => {
    using host = testHost({ gate: headlessGate("auto") });
    expect((await host.run.invoke(WRITE.name, WRITE.args)).ok).toBe(true);
  });
});
