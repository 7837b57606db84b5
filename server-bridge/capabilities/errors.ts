/** Expected refusals inside implementations: thrown as CodedError, turned into values by the ladder. */
import { CodedError } from "../../shared/protocol/errors.ts";

export function notFound(what: string, id: string, hint: string): CodedError {
  return new CodedError({ code: "capability_failed", message: `No ${what} with id "${id}". ${hint}` });
}

export function failed(message: string): CodedError {
  return new CodedError({ code: "capability_failed", message });
}
