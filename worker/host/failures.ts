/**
 * How the way an action ended becomes the observation's `error`: the code from the table and a message
 * for the model that reads it next. Guest errors arrive as the description the guest's setup module
 * made (name, message, position; never a host stack).
 */
import { ERROR_CODES, type ErrorCode } from "../../shared/protocol/errors.ts";
import { ACTION_FAILED } from "./observation.ts";

export interface GuestErrorInfo {
  name: string;
  message: string;
  code?: string;
  line?: number;
  column?: number;
}

export interface ObservedError {
  code: ErrorCode;
  message: string;
  line?: number;
  column?: number;
}

const OUT_OF_MEMORY = /out of memory|Cannot allocate|allocation failed/i;
const STACK = /stack overflow|Maximum call stack size exceeded|too much recursion/i;

export function timeoutError(timeoutMs: number): ObservedError {
  return {
    code: "timeout",
    message: `The action ran past its time limit of ${timeoutMs} ms and was stopped. Do less per action (fewer items, smaller loops) or split it.`,
  };
}

export function cancelledError(): ObservedError {
  return { code: "cancelled", message: "The action was cancelled before it finished." };
}

export function deadlockError(): ObservedError {
  return {
    code: ACTION_FAILED,
    message:
      "Deadlock: the action is waiting on a promise that nothing can settle (no capability call is pending and no job is queued). Make sure every promise you await is resolved.",
  };
}

export function memoryError(detail: string): ObservedError {
  return {
    code: "memory_limit",
    message: `The action ran out of ${detail}. Work on smaller pieces (page through results, process items in batches).`,
  };
}

/** Maps a guest error's description to the observation error. */
export function fromGuestError(
  info: GuestErrorInfo,
  refusals: ReadonlyMap<string, { code: ErrorCode }>,
): ObservedError {
  const at = positionOf(info);
  if (OUT_OF_MEMORY.test(info.message) && (info.name === "InternalError" || info.name === "RangeError")) {
    return { ...memoryError("memory"), ...at };
  }
  if (STACK.test(info.message)) return { ...memoryError("stack (too deep a recursion)"), ...at };
  const refusal = refusals.get(info.message);
  if (refusal) return { code: refusal.code, message: info.message, ...at };
  if (info.name === "CapabilityError" && isErrorCode(info.code)) {
    return { code: info.code, message: info.message, ...at };
  }
  const name = info.name || "Error";
  const hint = name === "ReferenceError" ? hostGlobalHint(info.message) : "";
  return { code: ACTION_FAILED, message: `The action threw ${name}: ${info.message}${hint}`, ...at };
}

/** What to use instead of a host global that an action does not have (models reach for these). */
const HOST_GLOBALS: [RegExp, string][] = [
  [/^(fetch|XMLHttpRequest|WebSocket)$/, "an action has no network of its own: call http_request from the web module"],
  [/^(setTimeout|setInterval|setImmediate)$/, "an action has no timers: to wait for a job, call jobs.wait"],
  [
    /^(require|process|Buffer|window|document|localStorage|module|__dirname)$/,
    'an action has no Node or browser APIs: import capability modules; describe("contract") lists its globals',
  ],
];

function hostGlobalHint(message: string): string {
  const name = /^'([^']+)' is not defined$/.exec(message)?.[1];
  const hint = name === undefined ? undefined : HOST_GLOBALS.find(([names]) => names.test(name))?.[1];
  return hint === undefined ? "" : ` (${hint}).`;
}

function positionOf(info: GuestErrorInfo): { line?: number; column?: number } {
  const out: { line?: number; column?: number } = {};
  if (info.line !== undefined && Number.isInteger(info.line)) out.line = info.line;
  if (info.column !== undefined && Number.isInteger(info.column)) out.column = info.column;
  return out;
}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && (ERROR_CODES as readonly string[]).includes(code);
}

/** Parses the guest's `describe()` JSON; anything malformed becomes a generic description. */
export function parseGuestError(text: string | undefined): GuestErrorInfo {
  try {
    const raw = JSON.parse(text ?? "") as Record<string, unknown>;
    const info: GuestErrorInfo = {
      name: typeof raw.name === "string" ? raw.name.slice(0, 100) : "Error",
      message: typeof raw.message === "string" ? raw.message : "",
    };
    if (typeof raw.code === "string") info.code = raw.code;
    if (typeof raw.line === "number") info.line = raw.line;
    if (typeof raw.column === "number") info.column = raw.column;
    return info;
  } catch {
    return { name: "Error", message: "(the thrown value could not be described)" };
  }
}

/** A host-side failure while running the VM (a wasm trap, the host's own stack): module is poisoned. */
export function fromHostFault(err: unknown): ObservedError {
  const message = err instanceof Error ? err.message : String(err);
  if (STACK.test(message)) return memoryError("stack (too deep a recursion)");
  if (OUT_OF_MEMORY.test(message) || /memory access out of bounds/i.test(message)) return memoryError("memory");
  return {
    code: ACTION_FAILED,
    message:
      "The sandbox failed while running the action and was reset. Retry; if it fails again, simplify the action.",
  };
}
