/**
 * Gate parity through the real path: an action calling a capability through its facade, the worker
 * host, the capability dispatcher and `invoke` must reach the same outcome, with the same approval
 * transcript, as a direct `invoke` with the same scripted approver, in every mode. The approval wait is
 * reported (and credited) once per prompt, never for reads.
 */
import { describe, expect, it } from "vitest";
import type { Mode } from "../../shared/capabilities/types.ts";
import type { ApprovalAnswer } from "../../shared/gate/approvals.ts";
import { inProcessSandbox, memoryImpls, memoryRouter, memoryRun, ScriptedApprover, scriptedGate } from "./harness.ts";

interface Case {
  capability: string;
  call: string;
  args: Record<string, unknown>;
}

const CASES: Case[] = [
  { capability: "get_workflow", call: `workflows.get("wf_1")`, args: { workflow_id: "wf_1" } },
  {
    capability: "create_workflow",
    call: `workflows.create("Made", { description: "d" })`,
    args: { name: "Made", description: "d" },
  },
];

const SCRIPTS: { mode: Mode; answers: ApprovalAnswer[] }[] = [
  { mode: "plan", answers: [] },
  { mode: "auto", answers: [] },
  { mode: "default", answers: ["allow", "allow"] },
  { mode: "default", answers: ["allow_for_session", "deny"] },
  { mode: "default", answers: ["deny", "allow"] },
];

async function fixture(mode: Mode, answers: ApprovalAnswer[]) {
  const approver = new ScriptedApprover(answers, { delayMs: 30 });
  const store = memoryImpls();
  const { run, audit } = memoryRun({ gate: scriptedGate(mode, approver), impls: store.impls });
  await store.impls.create_workflow?.(
    run as never,
    { name: "seed", description: "", graph: { nodes: [], edges: [] } } as never,
    { credit: () => {} },
  );
  return { approver, run, audit };
}

const transcript = (approver: ScriptedApprover) =>
  approver.asked.map((r) => ({ capability: r.capability, category: r.category, message: r.message, args: r.args }));

describe.each(CASES)("gate parity for $capability", ({ capability, call, args }) => {
  it.each(SCRIPTS)("mode $mode, answers $answers", async ({ mode, answers }) => {
    // Direct: invoke twice (the second shows what allow_for_session remembered).
    const direct = await fixture(mode, answers);
    const directOutcomes = [];
    for (let i = 0; i < 2; i++) {
      const r = await direct.run.invoke(capability, args);
      directOutcomes.push(r.ok ? "ok" : r.error.code);
    }

    // Through the sandbox: the same two calls from an action.
    const viaFacade = await fixture(mode, answers);
    using sandbox = inProcessSandbox(memoryRouter(viaFacade.run));
    const { observation } = await sandbox.run(`
      import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
      const out = [];
      for (let i = 0; i < 2; i++) { try { await ${call}; out.push("ok"); } catch (e) { out.push(e.code); } }
      export default out;`);

    expect(observation.result).toEqual(directOutcomes);
    expect(transcript(viaFacade.approver)).toEqual(transcript(direct.approver));
    expect(viaFacade.audit.map((a) => [a.decision, a.outcome])).toEqual(
      direct.audit.map((a) => [a.decision, a.outcome]),
    );

    // The wait is reported once per prompt, never for reads.
    const waited = observation.calls.filter((c) => c.waited_ms !== undefined);
    expect(waited).toHaveLength(viaFacade.approver.asked.length);
    for (const c of waited) expect(c.waited_ms).toBeGreaterThan(0);
    if (capability === "get_workflow") expect(waited).toHaveLength(0);
  });
});
