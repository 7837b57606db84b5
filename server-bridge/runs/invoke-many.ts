/**
 * `run.invokeMany` (HTTP only: tRPC's WebSocket adapter refuses async-generator mutations): the calls
 * of one worker batch, each exactly as `run.invoke` would run it (its own callId, hold and
 * idempotency, the whole ladder), answered as they settle. Answers ready at the same moment travel as
 * one group (a hundred calls that finish together are one chunk of the stream, not a hundred), and a
 * call waiting for a person holds back no other: it answers `{pending: true}` after the hold like any
 * held call, and the client sends it again with the same callId.
 */
import type { Actor } from "../../shared/capabilities/types.ts";
import { isCodedError, toFailure } from "../../shared/protocol/errors.ts";
import type { AnswerGroup, InvokeAnswer, InvokeCall } from "../../shared/protocol/server.ts";
import type { Runs } from "./runs.ts";

export async function* invokeMany(
  runs: Runs,
  userId: string,
  input: { runId: string; calls: readonly InvokeCall[]; actor?: Actor | undefined },
  logError: (capability: string, err: unknown) => void,
): AsyncGenerator<AnswerGroup, void, undefined> {
  const ready: AnswerGroup = [];
  let wake: (() => void) | undefined;
  for (const call of input.calls) {
    const answered = (answer: InvokeAnswer) => {
      ready.push({ callId: call.callId, answer });
      wake?.();
    };
    runs.invoke(userId, { ...call, runId: input.runId, actor: input.actor }).then(answered, (err: unknown) => {
      if (!isCodedError(err)) logError(call.export, err);
      answered({ ok: false, error: toFailure(err, `${call.export} failed on the server; nothing more is known.`) });
    });
  }
  let left = input.calls.length;
  while (left > 0) {
    if (ready.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    // More of the batch may settle in this same turn: collect them into this group.
    if (ready.length < left) await new Promise<void>((resolve) => setImmediate(resolve));
    wake = undefined;
    const group = ready.splice(0);
    left -= group.length;
    yield group;
  }
}
