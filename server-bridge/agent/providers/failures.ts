/**
 * A provider failure, described once for both adapters (each SDK's error classes are read in its own
 * adapter and turned into a ProviderFault), and the one table that turns a fault into the turn's
 * `error` event: a code from shared/protocol/errors.ts and a message for the person and the model,
 * with the provider's own text sanitised (sanitise.ts). Only the configured base URL's host is ever
 * named, never a path, a key or a stack.
 */
import type { ModelEvent } from "../../../shared/agent/messages.ts";
import { MAX_RETRY_WAIT_MS, retryAfterMs } from "./retry.ts";
import { sanitiseProviderText } from "./sanitise.ts";

export type ProviderFault =
  | { kind: "aborted" }
  | { kind: "unreachable"; reason: string }
  /** No answer before the SDK's timeout (connect), or the turn passed its deadline (answer). */
  | { kind: "timeout"; phase: "connect" | "answer" }
  /** The provider answered this status (after the SDK's retries, for 429 and 5xx). */
  | { kind: "status"; status: number; text: string; retryAfterSeconds: number | undefined }
  /** The provider reported an error inside the stream (an SSE error event). */
  | { kind: "stream_error"; text: string }
  /** The stream closed before the provider finished the message. */
  | { kind: "cut" }
  | { kind: "malformed" }
  | { kind: "unknown" };

export interface ProviderLabels {
  /** The configured base URL's host (`127.0.0.1:11434`, `api.openai.com`). */
  host: string;
  keyVariable: string;
  urlVariable: string;
  retries: number;
  /** The turn's deadline. */
  timeoutMs: number;
  /** Configured secrets the sanitiser removes wherever they appear. */
  secrets: readonly (string | undefined)[];
}

type ErrorEvent = Extract<ModelEvent, { type: "error" }>;

export function faultEvent(fault: ProviderFault, labels: ProviderLabels): ErrorEvent {
  const clean = (text: string) => sanitiseProviderText(text, labels.secrets);
  const detail = (status: number, text: string) => {
    const said = clean(text).replace(/\.$/, "");
    return said ? `${status}: ${said}` : `${status}`;
  };
  const afterRetries = labels.retries === 1 ? "after 1 retry" : `after ${labels.retries} retries`;
  switch (fault.kind) {
    case "aborted":
      return { type: "error", code: "cancelled", message: "The model call was stopped." };
    case "unreachable":
      return {
        type: "error",
        code: "capability_unavailable",
        message: `Could not reach the model provider at ${labels.host} (${fault.reason}). Check ${labels.urlVariable} and that the provider is running.`,
      };
    case "timeout": {
      const within = `within ${Math.round(labels.timeoutMs / 1000)} s`;
      return {
        type: "error",
        code: "timeout",
        message:
          fault.phase === "connect"
            ? `The model provider at ${labels.host} did not answer ${within} (${afterRetries}). Try again later.`
            : `The model provider at ${labels.host} did not finish its answer ${within}. Try again, or ask for less at once.`,
      };
    }
    case "status":
      return statusEvent(fault, labels, detail(fault.status, fault.text), afterRetries);
    case "stream_error":
      return {
        type: "error",
        code: "capability_failed",
        message: `The provider failed mid-answer${fault.text ? ` (${clean(fault.text)})` : ""}. Try again.`,
      };
    case "cut":
      return {
        type: "error",
        code: "capability_failed",
        message: "The answer was cut off: the connection to the model provider closed mid-message. Try again.",
      };
    case "malformed":
      return {
        type: "error",
        code: "capability_failed",
        message: "The model provider sent a stream that could not be read.",
      };
    case "unknown":
      return { type: "error", code: "capability_failed", message: "The model call failed unexpectedly. Try again." };
    default:
      return fault satisfies never;
  }
}

function statusEvent(
  fault: Extract<ProviderFault, { kind: "status" }>,
  labels: ProviderLabels,
  detail: string,
  afterRetries: string,
): ErrorEvent {
  const { status } = fault;
  if (status === 401) {
    return {
      type: "error",
      code: "unauthorized",
      message: `The provider refused the key (${detail}); check ${labels.keyVariable}.`,
    };
  }
  if (status === 403) {
    return {
      type: "error",
      code: "unauthorized",
      message: `The provider refused the key for this request (${detail}); check ${labels.keyVariable} and what the key may use.`,
    };
  }
  if (status === 429) {
    const wait = fault.retryAfterSeconds;
    const when = wait === undefined ? "retry later" : `retry after ${wait} s`;
    // A wait longer than the cap is not sat out (retry.ts): then there were no retries.
    const tried = wait !== undefined && wait * 1000 > MAX_RETRY_WAIT_MS ? "" : ` ${afterRetries}`;
    return {
      type: "error",
      code: "capability_failed",
      message: `Rate limited by the provider (${detail})${tried}; ${when}.`,
    };
  }
  if (status >= 500) {
    return {
      type: "error",
      code: "capability_failed",
      message: `The model provider failed (${detail}) ${afterRetries}. Try again later.`,
    };
  }
  if (status === 404) {
    return {
      type: "error",
      code: "capability_failed",
      message: `The provider has no such model or endpoint (${detail}). Choose one of the models it lists.`,
    };
  }
  return { type: "error", code: "capability_failed", message: `The provider refused the request (${detail}).` };
}

type ErrorClass<T = Error> = abstract new (...args: never[]) => T;

/** An SDK's error classes (both SDKs share this shape) and where it keeps the provider's own text. */
export interface SdkErrors<TApiError extends Error> {
  abort: ErrorClass;
  timeout: ErrorClass;
  connection: ErrorClass;
  api: ErrorClass<TApiError & { status: number | undefined; headers: Headers | undefined }>;
  providerText(err: TApiError): string | null | undefined;
}

/** What an SDK error means; `phase` says whether the stream had opened (a later network error is a cut). */
export function sdkFault<TApiError extends Error>(
  err: unknown,
  phase: "open" | "stream",
  sdk: SdkErrors<TApiError>,
): ProviderFault {
  if (err instanceof sdk.abort) return { kind: "aborted" };
  if (err instanceof sdk.timeout) return { kind: "timeout", phase: "connect" };
  if (err instanceof sdk.connection) return { kind: "unreachable", reason: unreachableReason(err) };
  if (err instanceof sdk.api) {
    // A body that was not JSON (a proxy's page) is only in the SDK's message, after the status.
    const text = sdk.providerText(err) ?? err.message.replace(/^\d{3} /, "");
    if (err.status === undefined) return { kind: "stream_error", text };
    const wait = retryAfterMs(err.headers);
    return {
      kind: "status",
      status: err.status,
      text,
      retryAfterSeconds: wait === undefined ? undefined : Math.ceil(wait / 1000),
    };
  }
  if (err instanceof SyntaxError) return { kind: "malformed" };
  return phase === "stream" ? { kind: "cut" } : { kind: "unknown" };
}

/** Why a connection failed, from the network error's own `code` (never from message text). */
export function unreachableReason(err: unknown): string {
  for (let cause = err, depth = 0; cause && depth < 5; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") {
      if (code === "ECONNREFUSED") return "connection refused";
      if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host not found";
      if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return "connection reset";
      if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return "host unreachable";
      if (code.startsWith("ERR_TLS") || code.includes("CERT")) return "TLS failed";
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return "connection failed";
}

/** The host of a base URL, for messages (never its path or credentials). */
export function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host || "the configured host";
  } catch {
    return "the configured host";
  }
}
