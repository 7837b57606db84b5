/**
 * What each failure code means to the one who reads it, in one line: the `CapabilityError` declaration
 * and `describe("contract")` list them from here. A `Record` over the code table, so a new code cannot
 * be added without saying what it means.
 */
import type { ErrorCode } from "../protocol/errors.ts";

export const ERROR_MEANINGS: Readonly<Record<ErrorCode, string>> = {
  unknown_module: "the import names no mounted module",
  unknown_export: "the module (or namespace object) has no such export or method; the message names the closest",
  invalid_call: "the arguments could not be folded into one object, or cannot cross the boundary",
  unknown_capability: "no capability has that name",
  invalid_tool_arguments: "the arguments failed the capability's schema; .issues says where",
  blocked_in_plan_mode: "plan mode runs reads only; ask the user to switch mode",
  permission_denied: "the user (or a host without a user) denied it; do not retry unchanged",
  approval_timeout: "nobody answered the approval in time; nothing ran",
  blocked_by_security_monitor: "the security monitor refused it; the message says why",
  capability_unavailable: "this run lacks what the capability needs (an editor, a service)",
  capability_failed: "the capability ran and failed; the message says why and what to do",
  run_ended: "the run ended (or the host stopped answering) before the call finished",
  cancelled: "the action was cancelled",
  timeout: "the action ran past its time limit",
  memory_limit: "the action used more memory than its limit",
  import_refused: "an import is not allowed (internal, or not declared for this session)",
  result_too_large: "the result is larger than the limit; return less, or save it as an asset",
  unauthorized: "the caller may not do this",
  action_failed: "the action's own code threw or did not parse; the message, line and column say where",
};
