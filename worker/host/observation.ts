/**
 * The observation an action returns to the agent (DESIGN.md section 6): `{ok, result?, error?, logs,
 * calls, duration_ms, approval_ms?}`, its duration the action's own (approval waits stated apart). It is always valid JSON and never larger than the limit: logs are capped as
 * they arrive, and when the whole still does not fit, the result becomes a preview and the call list a
 * prefix, with `truncated: true` and a visible marker where something was cut.
 */
import type { ErrorCode } from "../../shared/protocol/errors.ts";
import type { Observation } from "../../shared/protocol/worker.ts";
import type { CallRecordOut } from "./bridge.ts";

/**
 * The code of an action that failed by itself: it did not parse, it threw, or its result cannot cross
 * the boundary. Never `capability_failed`, which is a capability implementation's own failure.
 */
export const ACTION_FAILED = "action_failed" as const satisfies ErrorCode;

export const LOG_MARKER = "[log output truncated: the action logged more than the limit]";
const MAX_ERROR_MESSAGE = 4000;

export class LogBuffer {
  readonly #lines: string[] = [];
  readonly #max: number;
  #used = 0;
  #dropped = 0;

  constructor(maxChars: number) {
    this.#max = maxChars;
  }

  push(level: string, text: string): void {
    if (this.#dropped > 0) {
      this.#dropped++;
      return;
    }
    const line = level === "log" ? text : `[${level}] ${text}`;
    if (this.#used + line.length > this.#max) {
      const room = this.#max - this.#used;
      if (room > 80) this.#lines.push(`${line.slice(0, room)}...`);
      this.#dropped++;
      return;
    }
    this.#used += line.length;
    this.#lines.push(line);
  }

  lines(): string[] {
    return this.#dropped > 0 ? [...this.#lines, `${LOG_MARKER} (${this.#dropped} more lines)`] : [...this.#lines];
  }
}

export interface ObservationParts {
  ok: boolean;
  /** The result in the boundary encoding, already parsed (present when ok). */
  result?: unknown;
  /** Its JSON text, as measured inside the VM. */
  resultText?: string;
  error?: { code: ErrorCode; message: string; line?: number; column?: number };
  logs: string[];
  calls: CallRecordOut[];
  /** Wall time from the request to the result. */
  durationMs: number;
  /** Of it, the time spent waiting for approvals: left out of `duration_ms`, stated as `approval_ms`. */
  approvalMs: number;
}

export function buildObservation(parts: ObservationParts, maxChars: number): Observation {
  const observation: Observation = { ok: parts.ok, logs: parts.logs, calls: parts.calls, duration_ms: 0 };
  if (parts.ok) observation.result = parts.result ?? null;
  if (parts.error) {
    const message =
      parts.error.message.length > MAX_ERROR_MESSAGE
        ? `${parts.error.message.slice(0, MAX_ERROR_MESSAGE)}... [message truncated]`
        : parts.error.message;
    observation.error = { ...parts.error, message };
  }
  const approval = Math.min(parts.durationMs, Math.max(0, parts.approvalMs));
  observation.duration_ms = Math.round((parts.durationMs - approval) * 100) / 100;
  if (approval > 0) observation.approval_ms = Math.round(approval);
  return fitToSize(observation, parts.resultText, maxChars);
}

function size(value: unknown): number {
  return JSON.stringify(value).length;
}

function fitToSize(observation: Observation, resultText: string | undefined, maxChars: number): Observation {
  if (size(observation) <= maxChars) return observation;
  const out: Observation = { ...observation, truncated: true };
  // The result goes first: a preview of its JSON text keeps the beginning readable.
  if (out.ok) {
    const text = resultText ?? JSON.stringify(out.result ?? null);
    const rest = size({ ...out, result: null });
    const room = Math.max(0, maxChars - rest - 200);
    out.result = {
      truncated: `[result truncated: ${text.length} characters of JSON, the first ${Math.min(room, text.length)} shown]`,
      preview: text.slice(0, room),
    };
    if (size(out) <= maxChars) return out;
  }
  // Then the call list, then the logs: keep a prefix of each with a marker.
  const keepCalls = Math.max(0, Math.floor(out.calls.length / 4));
  if (out.calls.length > keepCalls) {
    const dropped = out.calls.length - keepCalls;
    out.calls = [
      ...out.calls.slice(0, keepCalls),
      { capability: `[${dropped} more calls not shown]`, ok: true, ms: 0 },
    ];
  }
  while (size(out) > maxChars && out.logs.length > 1) {
    out.logs = [...out.logs.slice(0, Math.floor(out.logs.length / 2)), "[logs truncated to fit the observation]"];
  }
  if (size(out) > maxChars && out.ok)
    out.result = { truncated: "[result omitted: the observation limit is too small]" };
  return out;
}
