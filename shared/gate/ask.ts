/**
 * Step 5 of the invoke ladder (DESIGN.md section 5): ask the person. The request shows, and its answer is
 * bound to, the call's arguments in the boundary encoding; the gate waits for the approver, the
 * approval's deadline or the run's end, whichever comes first, and an answer counts only if it is the
 * one asked for, unused, and an explicit allow.
 */
import type { AnySpec } from "../capabilities/types.ts";
import type { ErrorCode } from "../protocol/errors.ts";
import { toWire } from "../protocol/values.ts";
import { type ApprovalRequest, approvalHash, newId } from "./approvals.ts";
import type { Gate } from "./gate.ts";
import type { CapabilityRun } from "./invoke.ts";

type AskVerdict = { kind: "allow" } | { kind: "refuse"; code: ErrorCode; message: string };

/** How long an approver gets to record that the gate stopped waiting (it settles when its signal aborts). */
const SETTLE_GRACE_MS = 2_000;

async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise, grace]);
  } finally {
    clearTimeout(timer);
  }
}

export async function ask(
  run: CapabilityRun<unknown>,
  spec: AnySpec,
  args: unknown,
  agentMessage: string | undefined,
  consumed: Set<string>,
  allowKey: string,
): Promise<AskVerdict> {
  const gate = run.gate;
  const now = Date.now();
  // The person sees, and the answer is bound to, the arguments in the boundary encoding: bytes as
  // {$bytes} and assets as {$asset}, as they travel and are stored (validated args always encode).
  let shown: unknown;
  try {
    shown = toWire(args, "args");
  } catch (err) {
    const why = err instanceof Error ? err.message : "they cannot be shown";
    return { kind: "refuse", code: "invalid_tool_arguments", message: `${spec.name}: ${why}` };
  }
  const request: ApprovalRequest = {
    approval_id: newId("apr"),
    run_id: run.context.run_id,
    capability: spec.name,
    category: spec.category,
    message: await named(gate, describeCall(spec, args), args),
    args: shown,
    hash: await approvalHash(run.context.run_id, spec.name, shown),
    created_at: now,
    expires_at: now + gate.approvalTimeoutMs,
  };
  if (agentMessage !== undefined) request.agent_message = agentMessage;
  if (allowKey !== spec.name) request.scope = allowKey.slice(spec.name.length + 1);
  // The run may have ended while the hash was computed: its abort event has fired already, so the
  // listener below would never hear it and the person would be asked about a run that is over.
  if (run.context.signal.aborted) {
    return { kind: "refuse", code: "run_ended", message: `The run ended before ${spec.name} could ask for approval.` };
  }
  // The abort reason tells the approver why the gate stopped waiting: "timeout", "run_ended" or "settled".
  const controller = new AbortController();
  let why: "timeout" | "run_ended" | "settled" = "settled";
  const onRunEnd = () => controller.abort("run_ended");
  run.context.signal.addEventListener("abort", onRunEnd, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<{ kind: "timeout" }>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), gate.approvalTimeoutMs);
  });
  const ended = new Promise<{ kind: "ended" }>((resolve) => {
    if (controller.signal.aborted) resolve({ kind: "ended" });
    controller.signal.addEventListener("abort", () => resolve({ kind: "ended" }), { once: true });
  });
  try {
    const asked = gate.approver.ask(request, controller.signal).catch(() => ({ kind: "failed" as const }));
    const outcome = await Promise.race([asked, timedOut, ended]);
    if (outcome.kind === "timeout" || outcome.kind === "ended") {
      // The gate stops waiting: the approver records it (a stored approval settles) before the caller hears.
      why = outcome.kind === "timeout" ? "timeout" : "run_ended";
      if (!controller.signal.aborted) controller.abort(why);
      await settledWithin(asked, SETTLE_GRACE_MS);
    }
    if (outcome.kind === "failed") {
      return {
        kind: "refuse",
        code: "capability_unavailable",
        message: `The approval for ${spec.name} could not be asked (the approver failed), so it was not run; nobody said no. Try again, or ask the user to choose another mode.`,
      };
    }
    if (outcome.kind === "unavailable") {
      return { kind: "refuse", code: "capability_unavailable", message: outcome.reason };
    }
    if (outcome.kind === "timeout") {
      return {
        kind: "refuse",
        code: "approval_timeout",
        message: `Nobody answered the approval for ${spec.name} in time; it was not run. Try again when the user is present.`,
      };
    }
    if (outcome.kind === "ended") {
      return { kind: "refuse", code: "run_ended", message: `The run ended while ${spec.name} waited for approval.` };
    }
    if (
      outcome.approval_id !== request.approval_id ||
      outcome.hash !== request.hash ||
      consumed.has(outcome.approval_id)
    ) {
      return {
        kind: "refuse",
        code: "permission_denied",
        message: `The answer received does not match this call to ${spec.name} (an approval is single-use and bound to its arguments).`,
      };
    }
    consumed.add(outcome.approval_id);
    // Only an explicit allow runs; anything else an approver says counts as a denial.
    if (outcome.answer !== "allow" && outcome.answer !== "allow_for_session") {
      return {
        kind: "refuse",
        code: "permission_denied",
        message:
          outcome.reason ?? `The user denied ${spec.name}. Do not retry it unchanged; ask the user or try another way.`,
      };
    }
    if (outcome.answer === "allow_for_session") await gate.allowSet.add(allowKey);
    return { kind: "allow" };
  } finally {
    clearTimeout(timer);
    run.context.signal.removeEventListener("abort", onRunEnd);
    if (!controller.signal.aborted) controller.abort(why);
  }
}

/** The allow-set entry a call's "allow for session" adds and is checked against: `name` or `name@scope`. */
export function allowSetKey(spec: AnySpec, args: unknown): string {
  if (!spec.scope) return spec.name;
  let scope: string | undefined;
  try {
    scope = spec.scope(args as never);
  } catch {
    scope = undefined;
  }
  // A scoped capability whose scope cannot be told is allowed for nothing broader than this call.
  return `${spec.name}@${scope ?? "(unknown)"}`;
}

/** The message with each id the gate can name in its shown form (one pass: a name is never re-read). */
async function named(gate: Gate, message: string, args: unknown): Promise<string> {
  if (!gate.named) return message;
  let names: ReadonlyMap<string, string>;
  try {
    names = await gate.named(args);
  } catch {
    return message;
  }
  if (names.size === 0) return message;
  const ids = [...names.keys()].map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return message.replace(new RegExp(ids.join("|"), "g"), (id) => names.get(id) ?? id);
}

function describeCall(spec: AnySpec, args: unknown): string {
  if (spec.userMessage) {
    try {
      return spec.userMessage(args as never);
    } catch {
      // fall through to the generic line
    }
  }
  return `${spec.name} (${spec.category}): ${spec.description}`;
}
