/**
 * Gate parity through the real browser path: the read and write canaries driven by an action in the
 * page's worker (facade -> Comlink -> tRPC -> dispatcher -> invoke) give the same outcome and the same
 * approval transcript as a direct `invoke` on the server with a scripted approver.
 */

import { describe, expect, it } from "vitest";
import type { Mode } from "../../shared/capabilities/types.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../../shared/gate/approvals.ts";
import { ScriptedApprover } from "../support/approver.ts";
import { openApp } from "./browser.ts";
import { dialog, finished, runAction } from "./panel.ts";

type Step = { mode: Mode; answer?: ApprovalAnswer };
const STEPS: Step[] = [
  { mode: "plan" },
  { mode: "default", answer: "allow" },
  { mode: "default", answer: "deny" },
  { mode: "auto" },
];
const BUTTON: Record<ApprovalAnswer, string> = {
  allow: "Allow once",
  allow_for_session: "Allow for session",
  deny: "Deny",
};

interface Transcript {
  outcome: string;
  asked: { capability: string; category: string; message: string; args: unknown }[];
}

describe("gate parity through the browser", () => {
  it("matches a direct invoke for get_workflow (read) and create_workflow (write) in every mode", async () => {
    await using app = await openApp();
    const { page, server } = app;
    await page.getByLabel("Mode", { exact: true }).waitFor();
    const sessionId = ((await server.app.store.sql("SELECT id FROM sessions").get()) as { id: string }).id;
    const seed = await server.app.sessions.create("local", { mode: "auto" });
    const seeded = await server.app.runs.start("local", seed.sessionId);
    const made = await seeded.run.invoke("create_workflow", { name: "canary" });
    const workflowId = (made as { value: { id: string } }).value.id;

    for (const step of STEPS) {
      for (const canary of ["get", "create"] as const) {
        const args =
          canary === "get" ? { workflow_id: workflowId } : { name: `made in ${step.mode} ${step.answer ?? ""}` };
        // Through the browser.
        await page.getByLabel("Mode", { exact: true }).selectOption(step.mode);
        await expect.poll(() => server.app.sessions.mode(sessionId)).toBe(step.mode);
        const before = ((await server.app.store.sql("SELECT count(*) AS n FROM approvals").get()) as { n: number }).n;
        await runAction(
          page,
          `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
let outcome;
try { await workflows.${canary}(${JSON.stringify(args)}); outcome = "outcome:ok"; } catch (e) { outcome = "outcome:" + e.code; }
export default outcome;`,
        );
        if (step.answer && canary === "create")
          await dialog(page).getByRole("button", { name: BUTTON[step.answer] }).click();
        const text = await finished(page);
        const browserOutcome = text.match(/outcome:(\w+)/)?.[1] ?? text;
        const rows = (await server.app.store.sql("SELECT request FROM approvals ORDER BY created_at").all()) as {
          request: string;
        }[];
        const browser: Transcript = {
          outcome: browserOutcome,
          asked: rows.slice(before).map((r) => pick(JSON.parse(r.request) as ApprovalRequest)),
        };

        // Direct invoke with a scripted approver answering the same.
        const approver = new ScriptedApprover(step.answer ?? "deny");
        const asked = approver.asked;
        const direct = await server.app.sessions.create("local", { mode: step.mode });
        const live = await server.app.runs.start("local", direct.sessionId, {
          gate: {
            mode: () => step.mode,
            allowSet: server.app.sessions.allowSet(direct.sessionId),
            approver,
            approvalTimeoutMs: 60_000,
          },
        });
        const result = await live.run.invoke(`${canary}_workflow`, args);
        const expected: Transcript = { outcome: result.ok ? "ok" : result.error.code, asked: asked.map(pick) };
        expect(browser, `${canary} in ${step.mode} ${step.answer ?? ""}`).toEqual(expected);
      }
    }
  });
});

function pick(request: ApprovalRequest) {
  return { capability: request.capability, category: request.category, message: request.message, args: request.args };
}
