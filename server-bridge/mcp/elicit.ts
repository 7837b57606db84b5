/**
 * Asking the person through the MCP client. An `ask` of the gate (and the auto mode's admission of a
 * high-risk action) becomes an `elicitation/create` request sent with the tool call's own
 * `extra.sendRequest`, so over HTTP it travels on that call's stream. Accept = allow once (or for the
 * session when the person ticks the box); decline or cancel = deny; no answer within the approval
 * timeout = `approval_timeout`. A client that declared no elicitation support is never sent one: the
 * ask is denied with a message that says how to choose a mode.
 */
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ElicitResultSchema,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ApprovalOutcome, ApprovalRequest, Approver } from "../../shared/gate/approvals.ts";

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const NO_ELICITATION =
  "This MCP client cannot show approval prompts (it declared no elicitation support), so the call was denied. " +
  "Read capabilities run without approval. To let writes run, ask the user to start the server in auto mode " +
  "(MCP_MODE=auto, or `npm run --silent mcp -- --mode auto`) or to use a client that supports elicitation.";

/** What the person can answer: accepting is "allow once"; the box makes it last for the session. */
const APPROVAL_FORM = {
  type: "object" as const,
  properties: {
    for_session: {
      type: "boolean" as const,
      title: "Allow for the rest of this session",
      description: "Also allow later calls of this capability in this session without asking.",
      default: false,
    },
  },
};

const ADMISSION_FORM = { type: "object" as const, properties: {} };

type Answer = { kind: "accept"; forSession: boolean } | { kind: "refuse" } | { kind: "timeout" };

/**
 * The only accepted answers, checked again here (the SDK's ElicitResultSchema is loose: any content
 * record passes). Accept carries no content or exactly the form's fields with their types; anything
 * else (another action, extra keys, `for_session: "yes"`) is a refusal.
 */
const ApprovalContent = z.object({ for_session: z.boolean().optional() }).strict();
const AdmissionContent = z.object({}).strict();
const Accepted = z.object({ action: z.literal("accept"), content: z.unknown().optional() });

async function elicit(
  extra: ToolExtra,
  message: string,
  form: typeof APPROVAL_FORM | typeof ADMISSION_FORM,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Answer> {
  try {
    const result = await extra.sendRequest(
      { method: "elicitation/create", params: { mode: "form", message, requestedSchema: form } },
      ElicitResultSchema,
      { timeout: timeoutMs, signal },
    );
    const accepted = Accepted.safeParse(result);
    if (!accepted.success) return { kind: "refuse" };
    if (accepted.data.content === undefined) return { kind: "accept", forSession: false };
    const content = (form === APPROVAL_FORM ? ApprovalContent : AdmissionContent).safeParse(accepted.data.content);
    if (!content.success) return { kind: "refuse" };
    return { kind: "accept", forSession: "for_session" in content.data && content.data.for_session === true };
  } catch (err) {
    // The gate stopped waiting (its own timeout, or the run ended), or the client never answered.
    if (signal.aborted || (err instanceof McpError && err.code === ErrorCode.RequestTimeout))
      return { kind: "timeout" };
    // A malformed answer (it failed ElicitResultSchema) or an error reply: never an allow.
    return { kind: "refuse" };
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

export function approvalMessage(request: ApprovalRequest): string {
  const said = request.agent_message ? `\nThe agent says: ${request.agent_message}` : "";
  let args: string;
  try {
    args = clip(JSON.stringify(request.args) ?? "{}", 600);
  } catch {
    args = "(not shown)";
  }
  return `Allow ${request.capability} (${request.category})?\n${request.message}${said}\nArguments: ${args}`;
}

/** An approver that asks through this tool call's elicitations. */
export function elicitingApprover(extra: ToolExtra, timeoutMs: number): Approver {
  return {
    async ask(request, signal): Promise<ApprovalOutcome> {
      const answer = await elicit(extra, approvalMessage(request), APPROVAL_FORM, timeoutMs, signal);
      if (answer.kind === "timeout") return { kind: "timeout" };
      const verdict = answer.kind === "accept" ? (answer.forSession ? "allow_for_session" : "allow") : "deny";
      return { kind: "answer", answer: verdict, approval_id: request.approval_id, hash: request.hash };
    },
  };
}

/** The approver for a client that cannot be asked: every ask is denied, saying how to choose a mode. */
export const noElicitationApprover: Approver = {
  async ask(request): Promise<ApprovalOutcome> {
    return {
      kind: "answer",
      answer: "deny",
      approval_id: request.approval_id,
      hash: request.hash,
      reason: `${request.capability} needs the user's approval. ${NO_ELICITATION}`,
    };
  },
};

/** Auto mode's courtesy for an action the agent marks high-risk: one ask before it runs. */
export async function admit(
  extra: ToolExtra,
  action: { title?: string | undefined; description: string; code: string },
  timeoutMs: number,
): Promise<"admitted" | "declined" | "timeout"> {
  const message =
    `The agent wants to run an action it marks as high-risk${action.title ? `: ${action.title}` : ""}.\n` +
    `${clip(action.description, 1000)}\n\nCode:\n${clip(action.code, 2000)}\n\nRun it?`;
  const answer = await elicit(extra, message, ADMISSION_FORM, timeoutMs, extra.signal);
  return answer.kind === "accept" ? "admitted" : answer.kind === "refuse" ? "declined" : "timeout";
}
