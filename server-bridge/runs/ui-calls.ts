/**
 * The `ui` path of a run (DESIGN.md section 8): the page applies `ui_*` operations to its editor
 * itself, but only after the server's ladder authorised them (`authorize`: steps 1-6, same prompt,
 * allow-set and audit), and reports each outcome (`complete`, audited once). An authorised
 * `ui_run_workflow` starts its job here (`startJob`) from exactly the args the gate let through.
 */
import type { Actor, InvokeResult } from "../../shared/capabilities/types.ts";
import { canonicalJson } from "../../shared/gate/approvals.ts";
import { type Authorization, safeMessage } from "../../shared/gate/invoke.ts";
import { type ErrorCode, failure, isCodedError } from "../../shared/protocol/errors.ts";
import type { InvokeAnswer } from "../../shared/protocol/server.ts";
import { fromWire, toWire } from "../../shared/protocol/values.ts";
import { OUTPUT_CHECK } from "../capabilities/output-check.ts";
import { engineOf } from "../engine/jobs.ts";
import { startWorkflowJob, type WorkflowRunArgs } from "../engine/run-workflow.ts";
import type { AuditLog } from "../store/audit.ts";
import { type Runs, refusal } from "./runs.ts";

export class UiCalls {
  constructor(
    private readonly runs: Runs,
    private readonly audit: AuditLog,
  ) {}

  /** `run.authorize`: steps 1-6 for a call the page will apply; answers the validated args, encoded. */
  async authorize(
    userId: string,
    input: { runId: string; capability: string; args: unknown; callId: string; actor?: Actor | undefined },
    options: { hold?: boolean } = {},
  ): Promise<InvokeAnswer> {
    const live = await this.runs.live(userId, input.runId);
    if ("ok" in live) return Promise.resolve(live);
    const actor = input.actor ?? "agent";
    const started = Date.now();
    return this.runs.held(live, {
      callId: input.callId,
      key: canonicalJson({ authorize: input.capability, args: input.args, actor }),
      hold: options.hold ?? true,
      start: async () => {
        if (!input.capability.startsWith("ui_") && input.capability !== "list_renderers") {
          return refusal(
            "invalid_call",
            `Only ui capabilities are applied by the page; call ${input.capability} with run.invoke.`,
          );
        }
        if (!live.mounted.includes("ui"))
          return refusal("unknown_module", "The ui module is not mounted for this session.");
        let args: unknown;
        try {
          args = fromWire(input.args, "args");
        } catch (err) {
          return refusal("invalid_call", `${input.capability}: ${err instanceof Error ? err.message : "undecodable"}`);
        }
        const result = await live.run.invoke(input.capability, args, { authorizeOnly: true, actor });
        if (!result.ok) return result;
        const authorization = result.value as Authorization;
        live.authorized.set(input.callId, { ...authorization, actor, started, waited: result.waited_ms ?? 0 });
        // The page applies exactly these arguments: they travel encoded, as every value does.
        return { ...result, value: { ...authorization, args: toWire(authorization.args, "args") } };
      },
    });
  }

  /**
   * `run.startJob`: starts the job of an authorised `ui_run_workflow` call from exactly the args the
   * gate let through (the editor puts the open graph in them before authorising, so the approval named
   * what runs). Once per call: asking again answers the same job. The job's node effects pass the
   * run's gate on their own; the call's outcome is still reported with `complete`.
   */
  async startJob(userId: string, input: { runId: string; callId: string }): Promise<InvokeResult> {
    const live = await this.runs.live(userId, input.runId);
    if ("ok" in live) return live;
    const authorization = live.authorized.get(input.callId);
    if (authorization?.capability !== "ui_run_workflow") {
      return refusal(
        "invalid_call",
        `No authorised ui_run_workflow call "${input.callId}" is waiting in this run; authorise it with run.authorize first.`,
      );
    }
    try {
      const job =
        authorization.jobId === undefined
          ? await startWorkflowJob(live.run, authorization.args as WorkflowRunArgs, authorization.actor)
          : await engineOf(live.run).view(userId, authorization.jobId, { nodes: false, nodeOutputs: false });
      authorization.jobId = job.job_id;
      return { ok: true, value: { job_id: job.job_id, status: job.status, progress: job.progress } };
    } catch (err) {
      return { ok: false, error: isCodedError(err) ? err.payload : failure("capability_failed", safeMessage(err)) };
    }
  }

  /** `run.complete`: the page reports how an authorised `ui` call went; audited once. */
  async complete(
    userId: string,
    input: { runId: string; callId: string; ok: boolean; error?: { code: ErrorCode; message: string } | undefined },
  ): Promise<{ recorded: true } | InvokeResult> {
    const live = await this.runs.live(userId, input.runId);
    if ("ok" in live) return live;
    const authorization = live.authorized.get(input.callId);
    if (!authorization) {
      return refusal("invalid_call", `No authorised call "${input.callId}" is waiting for completion in this run.`);
    }
    live.authorized.delete(input.callId);
    // ok means the result matched its output schema: the page checks what it made (web/src/ui-client.ts),
    // and a ui_run_workflow's answer is a jobs.wait the server checked.
    if (input.ok) OUTPUT_CHECK?.passed?.(authorization.capability);
    this.audit.write(userId, {
      actor: authorization.actor,
      run_id: live.id,
      session_id: live.sessionId,
      capability: authorization.capability,
      category: authorization.category,
      decision: authorization.decision,
      outcome: input.ok ? "ok" : (input.error?.code ?? "capability_failed"),
      duration_ms: Date.now() - authorization.started,
      waited_ms: authorization.waited,
    });
    return { recorded: true };
  }
}
