/**
 * Asking the person through the MCP client. An `ask` of the gate (and the auto mode's admission of a
 * high-risk action) becomes a form-mode `elicitation/create` request sent with the tool call's own
 * `extra.sendRequest`, so over HTTP it travels on that call's stream. Only a client that declared form
 * elicitation is ever sent one. What comes back is told truthfully:
 * - accept = allow once (or for the session when the person ticks the box);
 * - decline or cancel = the person said no (`permission_denied`);
 * - no answer within the approval timeout = `approval_timeout`;
 * - a client that cannot show a form, that answers the request with an error, or whose answer cannot
 *   be read = `capability_unavailable`: nobody said no, so the model is never told the user did.
 */
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type ClientCapabilities,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ApprovalOutcome, ApprovalRequest, Approver } from "../../shared/gate/approvals.ts";

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Form-mode elicitation is declared as `elicitation: { form: {} }` (the SDK reads a bare `{}` so too). */
export function canAskInForm(capabilities: ClientCapabilities | undefined): boolean {
  return capabilities?.elicitation?.form !== undefined;
}

export const NO_ELICITATION =
  "This MCP client cannot show approval prompts (it declared no form elicitation), so nobody was asked and the call did not run. " +
  "Read capabilities run without approval. To let writes run, ask the user to start the server in auto mode " +
  "(MCP_MODE=auto, or `npm run --silent mcp -- --mode auto`) or to use a client that supports form elicitation.";

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

type Answer =
  | { kind: "accept"; forSession: boolean }
  | { kind: "decline"; dismissed: boolean }
  | { kind: "timeout" }
  | { kind: "unavailable"; why: "failed" | "unreadable" };

/**
 * The answers we accept, parsed here (the SDK is given a schema that takes any object, so every
 * judgement is ours). Accept carries no content or exactly the form's fields with their types.
 */
const AnyResult = z.looseObject({});
const Result = z.discriminatedUnion("action", [
  z.object({ action: z.literal("accept"), content: z.unknown().optional() }).loose(),
  z.object({ action: z.literal("decline") }).loose(),
  z.object({ action: z.literal("cancel") }).loose(),
]);
const ApprovalContent = z.object({ for_session: z.boolean().optional() }).strict();
const AdmissionContent = z.object({}).strict();

async function elicit(
  extra: ToolExtra,
  message: string,
  form: typeof APPROVAL_FORM | typeof ADMISSION_FORM,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Answer> {
  let raw: unknown;
  // The request's own signal follows the gate's only until the answer is in: the gate signals
  // "settled" after every ask, and the client must not be told an answered prompt was cancelled.
  const asking = new AbortController();
  const stop = () => asking.abort(signal.reason);
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  try {
    raw = await extra.sendRequest(
      { method: "elicitation/create", params: { mode: "form", message, requestedSchema: form } },
      AnyResult,
      { timeout: timeoutMs, signal: asking.signal },
    );
  } catch (err) {
    // The gate stopped waiting (its own timeout, or the run ended), or the client never answered.
    if (signal.aborted || (err instanceof McpError && err.code === ErrorCode.RequestTimeout))
      return { kind: "timeout" };
    // The client answered with an error (it could not show the prompt) or the transport failed.
    return { kind: "unavailable", why: "failed" };
  } finally {
    signal.removeEventListener("abort", stop);
  }
  const result = Result.safeParse(raw);
  if (!result.success) return { kind: "unavailable", why: "unreadable" };
  if (result.data.action !== "accept") return { kind: "decline", dismissed: result.data.action === "cancel" };
  const content = result.data.content;
  if (content === undefined) return { kind: "accept", forSession: false };
  const parsed = (form === APPROVAL_FORM ? ApprovalContent : AdmissionContent).safeParse(content);
  if (!parsed.success) return { kind: "unavailable", why: "unreadable" };
  return { kind: "accept", forSession: "for_session" in parsed.data && parsed.data.for_session === true };
}

/** Why nobody's answer could be had, for the model: nobody said no. */
export function unavailableReason(why: "failed" | "unreadable", what: string): string {
  return why === "failed"
    ? `The MCP client could not show the approval for ${what} (it answered the request with an error), so it did not run; nobody said no. Try again, or ask the user to check the client.`
    : `The MCP client's answer to the approval for ${what} could not be read (it was not accept, decline or cancel with the form's fields), so it did not run; nobody said no. Try again.`;
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
      switch (answer.kind) {
        case "timeout":
          return { kind: "timeout" };
        case "unavailable":
          return { kind: "unavailable", reason: unavailableReason(answer.why, request.capability) };
        case "decline":
          return {
            kind: "answer",
            answer: "deny",
            approval_id: request.approval_id,
            hash: request.hash,
            ...(answer.dismissed
              ? {
                  reason: `The user dismissed the approval for ${request.capability} without allowing it, so it did not run. Do not retry it unchanged; ask the user what to do.`,
                }
              : {}),
          };
        case "accept":
          return {
            kind: "answer",
            answer: answer.forSession ? "allow_for_session" : "allow",
            approval_id: request.approval_id,
            hash: request.hash,
          };
        default: {
          const never: never = answer;
          return never;
        }
      }
    },
  };
}

/** The approver for a client that cannot be asked: nobody is, and the call is unavailable, not denied. */
export const noElicitationApprover: Approver = {
  async ask(request): Promise<ApprovalOutcome> {
    return { kind: "unavailable", reason: `${request.capability} needs the user's approval. ${NO_ELICITATION}` };
  },
};

export type Admission = "admitted" | "declined" | "timeout" | { unavailable: string };

/** Auto mode's courtesy for an action the agent marks high-risk: one ask before it runs. */
export async function admit(
  extra: ToolExtra,
  action: { title?: string | undefined; description: string; code: string },
  timeoutMs: number,
): Promise<Admission> {
  const message =
    `The agent wants to run an action it marks as high-risk${action.title ? `: ${action.title}` : ""}.\n` +
    `${clip(action.description, 1000)}\n\nCode:\n${clip(action.code, 2000)}\n\nRun it?`;
  const answer = await elicit(extra, message, ADMISSION_FORM, timeoutMs, extra.signal);
  if (answer.kind === "accept") return "admitted";
  if (answer.kind === "decline") return "declined";
  if (answer.kind === "timeout") return "timeout";
  return { unavailable: unavailableReason(answer.why, "this high-risk action") };
}
