/**
 * The one table from our failure codes to HTTP statuses (tRPC's `getHTTPStatusCode` is the model),
 * exhaustive, so a new code cannot be added without choosing its status. `unauthorized` is 403: it is
 * what a signed-in caller gets for something that is not theirs; 401 is only ever the answer to
 * missing credentials (with `WWW-Authenticate`), given by the guards themselves.
 */
import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import type { ErrorCode } from "../../shared/protocol/errors.ts";

export const HTTP_STATUS: Record<ErrorCode, number> = {
  unknown_module: 400,
  unknown_export: 400,
  invalid_call: 400,
  unknown_capability: 400,
  invalid_tool_arguments: 400,
  import_refused: 400,
  unauthorized: 403,
  blocked_in_plan_mode: 403,
  permission_denied: 403,
  blocked_by_security_monitor: 403,
  approval_timeout: 408,
  capability_unavailable: 409,
  run_ended: 409,
  result_too_large: 413,
  memory_limit: 422,
  action_failed: 422,
  cancelled: 499,
  capability_failed: 500,
  timeout: 504,
};

/**
 * tRPC's own name for each HTTP status, read off tRPC's table. PARSE_ERROR shares 400 with
 * BAD_REQUEST but names a body that is not JSON, so it is left out.
 */
const TRPC_KEY_BY_STATUS = new Map<number, TRPC_ERROR_CODE_KEY>();
for (const key of Object.keys(TRPC_ERROR_CODES_BY_KEY) as TRPC_ERROR_CODE_KEY[]) {
  if (key !== "PARSE_ERROR") TRPC_KEY_BY_STATUS.set(getHTTPStatusCodeFromError(new TRPCError({ code: key })), key);
}

/** The tRPC error code that carries `code`'s HTTP status. */
export function trpcCodeFor(code: ErrorCode): TRPC_ERROR_CODE_KEY {
  return TRPC_KEY_BY_STATUS.get(HTTP_STATUS[code]) ?? "INTERNAL_SERVER_ERROR";
}
