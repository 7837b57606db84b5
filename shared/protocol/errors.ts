/**
 * The one table of failure codes (DESIGN.md section 9) and the wire shape of a failure.
 * Every refusal anywhere in the system carries one of these codes and a message written for
 * whoever reads it next (a model choosing its next action, or a person). Messages never carry a
 * host stack, a file path or SQL.
 */
import { z } from "zod";

export const ERROR_CODES = [
  "unknown_module",
  "unknown_export",
  "invalid_call",
  "unknown_capability",
  "invalid_tool_arguments",
  "blocked_in_plan_mode",
  "permission_denied",
  "approval_timeout",
  "blocked_by_security_monitor",
  "capability_unavailable",
  "capability_failed",
  "run_ended",
  "cancelled",
  "timeout",
  "memory_limit",
  "import_refused",
  "result_too_large",
  "unauthorized",
  "action_failed",
] as const;

export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** A failure as it crosses any boundary: always a plain copy, never a host error object. */
export const FailurePayload = z.object({
  code: ErrorCode,
  message: z.string(),
  capability: z.string().optional(),
  issues: z.array(z.string()).optional(),
  suggestions: z.array(z.string()).optional(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
});
export type FailurePayload = z.infer<typeof FailurePayload>;

export function failure(
  code: ErrorCode,
  message: string,
  extra: Omit<FailurePayload, "code" | "message"> = {},
): FailurePayload {
  return { code, message, ...extra };
}

/**
 * A schema's complaints, one line each, as their reader sees them: `where: what`, with `whole` naming
 * the input itself when the complaint is about all of it.
 */
export function issueLines(error: z.ZodError, whole: string): string[] {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join(".") : whole}: ${issue.message}`);
}

/** Thrown only inside one layer to unwind to the place that turns it into a value. */
export class CodedError extends Error {
  readonly payload: FailurePayload;
  constructor(payload: FailurePayload) {
    super(payload.message);
    this.name = "CodedError";
    this.payload = payload;
  }
}

export function isCodedError(err: unknown): err is CodedError {
  return err instanceof CodedError;
}

/** What the reader of a failure nobody expected is told: a fixed text, never the error's own. */
export const UNEXPECTED_FAILURE =
  "The server failed on this request; nothing more is known. Retry once, then try another way.";

/**
 * The one normaliser for errors at the edges (HTTP, tRPC, MCP): a CodedError keeps its payload,
 * anything else (a bug, a library's throw) becomes `capability_failed` with `message`, because its own
 * text may name host paths or internals. Log the original where it is caught.
 */
export function toFailure(err: unknown, message: string = UNEXPECTED_FAILURE): FailurePayload {
  return isCodedError(err) ? err.payload : failure("capability_failed", message);
}
