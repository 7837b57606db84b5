/**
 * `execute_code`: one action in a `worker_threads` sandbox, every capability module mounted for the MCP
 * session and the first-party packs allowed, the guest's calls served in-process (dispatcher ->
 * `run.invoke`, no HTTP). Each call is one run of the session; its approver asks through this tool
 * call's elicitations (a client that cannot be asked gets capability_unavailable, never a denial).
 * In auto mode an action marked `risk: "high"` is admitted by one ask first (skipped when the client
 * cannot be asked): a courtesy, since `risk` is the agent's own claim; the gate still decides every
 * call. Progress notifications keep clients that abort quiet calls waiting; the call's cancellation
 * cancels the action and ends its run.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ExecuteCodeInput } from "../../shared/agent/tools.ts";
import type { AppServices } from "../app-services.ts";
import type { LibraryDispatcher } from "../packs/index.ts";
import { runSandboxedAction } from "../sandbox/action.ts";
import { admit, elicitingApprover, noElicitationApprover, type ToolExtra } from "./elicit.ts";
import { observationResult, refusedObservation } from "./results.ts";
import type { McpAgentSession } from "./session.ts";

export interface ExecuteContext {
  app: AppServices;
  agent: McpAgentSession;
  library: LibraryDispatcher;
  /** Whether the connected client declared form-mode elicitation. */
  canElicit(): boolean;
  /** How often a long action reports progress (when the client gave a progress token). */
  progressIntervalMs: number;
}

/** Sends `notifications/progress` for this call while it runs, if the client asked for progress. */
function reportProgress(extra: ToolExtra, intervalMs: number) {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { callSettled: undefined, stop: () => {} };
  const started = performance.now();
  let progress = 0;
  let calls = 0;
  let lastSent = 0;
  const send = () => {
    lastSent = performance.now();
    const seconds = Math.round((lastSent - started) / 1000);
    extra
      .sendNotification({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: ++progress,
          message: `running for ${seconds} s, ${calls} capability calls done`,
        },
      })
      .catch(() => undefined);
  };
  const timer = setInterval(send, intervalMs);
  timer.unref?.();
  return {
    // A settled call is news too, but never more often than the heartbeat.
    callSettled: () => {
      calls++;
      if (performance.now() - lastSent >= intervalMs) send();
    },
    stop: () => clearInterval(timer),
  };
}

export async function executeCode(
  ctx: ExecuteContext,
  input: ExecuteCodeInput,
  extra: ToolExtra,
): Promise<CallToolResult> {
  const started = performance.now();
  const { app, agent } = ctx;
  const canElicit = ctx.canElicit();
  // The mode is read only when it matters (a high-risk action a client could be asked about).
  if (input.risk === "high" && canElicit && (await agent.mode()) === "auto") {
    const admission = await admit(extra, input, app.config.approvalTimeoutMs);
    if (admission === "declined") {
      return observationResult(
        refusedObservation(
          "permission_denied",
          "The user declined to run this action; nothing ran. Do not retry it unchanged: ask the user what to do instead.",
          started,
        ),
      );
    }
    if (typeof admission === "object") {
      return observationResult(refusedObservation("capability_unavailable", admission.unavailable, started));
    }
    if (admission === "timeout") {
      return observationResult(
        refusedObservation(
          "approval_timeout",
          "Nobody answered whether this high-risk action may run; nothing ran. Try again when the user is present.",
          started,
        ),
      );
    }
  }
  const approver = canElicit ? elicitingApprover(extra, app.config.approvalTimeoutMs) : noElicitationApprover;
  // The run's row is written while the action starts (its calls wait for it); the answer waits for both.
  const opening = agent.openRun(approver);
  const ended = (reason: "ended" | "cancelled") =>
    opening.then(
      (run) => run.end(reason).catch((err: unknown) => app.log("error", "ending a run failed", err)),
      () => undefined, // never opened: nothing to end
    );
  const progress = reportProgress(extra, ctx.progressIntervalMs);
  // Cancelled: the run ends at once (a call still waiting, or made later, has no effect), and the
  // sandbox stops the action at its next interrupt check (a synchronous loop too).
  const onCancel = () => void ended("cancelled");
  let notOpened: { reason: unknown } | undefined;
  extra.signal.addEventListener("abort", onCancel, { once: true });
  try {
    // On the process's pool, in this user's turn (cancelled while it waits: it never starts).
    const sandboxed = runSandboxedAction(app.sandbox, {
      action: input.code,
      run: { user_id: agent.userId, ready: opening.then((run) => run.live.run) },
      mounted: agent.mounted,
      packs: agent.packs,
      library: ctx.library,
      limits: { timeout_ms: app.config.actionTimeoutMs },
      signal: extra.signal,
      onCallSettled: progress.callSettled,
    });
    const [action, opened] = await Promise.allSettled([sandboxed, opening]);
    // A run that could not be opened fails the call as it did before the action started (the action's
    // calls, waiting for it, failed with run_ended: nothing it asked for was done).
    if (opened.status === "rejected") notOpened = { reason: opened.reason };
    else if (action.status === "fulfilled") return observationResult(action.value.observation);
    else {
      app.log("error", "execute_code failed outside the action", action.reason);
      return observationResult(
        refusedObservation(
          "run_ended",
          "The sandbox could not run the action; nothing more is known. Try again.",
          started,
        ),
      );
    }
  } finally {
    extra.signal.removeEventListener("abort", onCancel);
    progress.stop();
    // The action is over; its run's rows are settled right after the answer leaves, off the round trip.
    const reason = extra.signal.aborted ? "cancelled" : "ended";
    setImmediate(() => void ended(reason));
  }
  throw notOpened.reason;
}
