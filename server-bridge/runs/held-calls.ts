/**
 * Idempotency and the hold for the calls of one live run. A call is identified by `(runId, callId)`:
 * sending it again (a re-sent HTTP call, a socket that reconnected) joins the first attempt and never
 * runs the capability twice; the same callId with other arguments is refused. Over HTTP a call
 * waiting on a person is held at most `holdMs`, then answered `{pending: true}`; over the page's
 * socket it simply answers when it settles (`holdMs` undefined).
 */
import type { InvokeResult } from "../../shared/capabilities/types.ts";
import { failure } from "../../shared/protocol/errors.ts";
import type { InvokeAnswer } from "../../shared/protocol/server.ts";

export interface HeldCalls {
  readonly calls: Map<string, { key: string; promise: Promise<InvokeResult> }>;
  callCount: number;
}

export async function callOnce(
  held: HeldCalls,
  options: {
    callId: string | undefined;
    /** What makes two sends of one callId the same call (canonical JSON of its arguments). */
    key: string;
    maxCalls: number;
    holdMs: number | undefined;
  },
  start: () => Promise<InvokeResult>,
): Promise<InvokeAnswer> {
  const { callId, key } = options;
  let entry = callId === undefined ? undefined : held.calls.get(callId);
  if (entry && entry.key !== key) {
    return refused(`callId "${callId}" was already used in this run with different arguments.`);
  }
  if (!entry) {
    if (++held.callCount > options.maxCalls) {
      return refused(`This run reached its cap of ${options.maxCalls} capability calls.`);
    }
    entry = { key, promise: start() };
    if (callId !== undefined) held.calls.set(callId, entry);
  }
  if (callId === undefined || options.holdMs === undefined) return entry.promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pending = new Promise<{ pending: true }>((resolve) => {
    timer = setTimeout(() => resolve({ pending: true }), options.holdMs);
  });
  try {
    return await Promise.race([entry.promise, pending]);
  } finally {
    clearTimeout(timer);
  }
}

function refused(message: string): InvokeResult {
  return { ok: false, error: failure("invalid_call", message) };
}
