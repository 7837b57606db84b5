/**
 * The error codes the sandbox and the gate produce, as the action contract lists them: what a failed
 * call's CapabilityError carries (the dispatcher, the invoke ladder, the library packs, the worker's
 * own refusals) and what an action can end with by itself. tests/unit/codes.test.ts reads the
 * producers' source and fails when a code they produce is missing here, or a code here is produced
 * by none of them.
 */
import type { ErrorCode } from "../protocol/errors.ts";

export const CALL_ERROR_CODES = [
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
] as const satisfies readonly ErrorCode[];

export const ACTION_ERROR_CODES = [
  "action_failed",
  "import_refused",
  "timeout",
  "cancelled",
  "memory_limit",
  "result_too_large",
  "run_ended",
] as const satisfies readonly ErrorCode[];
