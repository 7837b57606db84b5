/**
 * How the page sends a worker batch's calls to the server: over the page's socket each call is one
 * `run.invoke` (the calls of one tick leave together, split below the server's message cap, a held
 * call re-sent with its same callId after a drop); over the HTTP fallback a batch is one streamed
 * `run.invokeMany`, and a `{pending: true}` answer goes again. Every call settles exactly once.
 */
import type { FailurePayload } from "../../shared/protocol/errors.ts";
import { AnswerGroup } from "../../shared/protocol/server.ts";
import type { WireCall, WireCallResult } from "../../shared/protocol/worker.ts";
import { MessageTooLargeError, resend } from "./resend.ts";
import type { Api } from "./transport.ts";
import { callResult, readAnswer } from "./ui-client.ts";

/** Room left in a message for the envelope around a call's arguments (ids, module, export). */
const CALL_ENVELOPE_BYTES = 512;

/**
 * Over the socket: each call is one `run.invoke`, settled as its answer arrives. The calls of one
 * chunk are issued in one tick, so tRPC's socket client sends them as one message; a batch larger
 * than the server's message cap is split into chunks issued a task apart, and a single call larger
 * than the cap is refused here instead of being sent (the server would close the socket for it).
 */
export async function invokeEach(
  api: Api,
  runId: string,
  calls: readonly WireCall[],
  isCurrent: () => boolean,
  settle: (result: WireCallResult) => void,
  maxBytes: number,
): Promise<void> {
  const budget = Math.floor(maxBytes / 2);
  let chunk: WireCall[] = [];
  let bytes = 0;
  const chunks: WireCall[][] = [chunk];
  for (const call of calls) {
    const size = JSON.stringify(call.args).length + CALL_ENVELOPE_BYTES;
    if (size > budget) {
      settle(
        failedCall(call, {
          code: "invalid_call",
          message: `The arguments of ${call.export} come to ${size} bytes; a call carries at most ${budget}. Pass less (or save it as an asset and pass its id).`,
        }),
      );
      continue;
    }
    if (bytes + size > budget && chunk.length > 0) {
      chunk = [];
      bytes = 0;
      chunks.push(chunk);
    }
    chunk.push(call);
    bytes += size;
  }
  for (const [i, group] of chunks.entries()) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 0));
    for (const call of group) void invokeOne(api, runId, call, isCurrent).then(settle);
  }
}

async function invokeOne(api: Api, runId: string, call: WireCall, isCurrent: () => boolean): Promise<WireCallResult> {
  const send = () =>
    api.run.invoke.mutate({ runId, module: call.module, export: call.export, args: call.args, callId: call.callId });
  for (;;) {
    let answer: unknown;
    try {
      answer = await resend(send, isCurrent);
    } catch (err) {
      if (err instanceof MessageTooLargeError) return failedCall(call, { code: "invalid_call", message: err.message });
      return failedCall(call, unreachable(err));
    }
    const read = readAnswer(answer);
    if (!("pending" in read)) return callResult(call.callId, read);
    if (!isCurrent()) return failedCall(call, endedWhileWaiting());
  }
}

/**
 * Sends `calls` as one `run.invokeMany` and settles each answer group as it arrives (the group's
 * results together); calls answered `{pending: true}` (waiting for a person past the server's hold) go
 * again, same callIds, while the action runs. Every call settles exactly once (the settle batcher
 * ignores nothing, so neither may we).
 */
export async function invokeMany(
  api: Api,
  runId: string,
  calls: readonly WireCall[],
  isCurrent: () => boolean,
  settle: (results: WireCallResult[]) => void,
): Promise<void> {
  let waiting = calls;
  while (waiting.length > 0) {
    const open = new Map(waiting.map((call) => [call.callId, call]));
    const again: WireCall[] = [];
    try {
      const stream =
        waiting.length === 1
          ? lone(api, runId, waiting[0] as WireCall)
          : await api.run.invokeMany.mutate({
              runId,
              calls: waiting.map((call) => ({
                module: call.module,
                export: call.export,
                args: call.args,
                callId: call.callId,
              })),
            });
      for await (const raw of stream) {
        const group = AnswerGroup.safeParse(raw);
        if (!group.success) continue;
        const settled: WireCallResult[] = [];
        for (const { callId, answer } of group.data) {
          const call = open.get(callId);
          if (!call) continue;
          open.delete(callId);
          // Parsed already (AnswerGroup): a pending call goes again, anything else settles as it is.
          if (!("pending" in answer)) settled.push(callResult(call.callId, answer));
          else if (isCurrent()) again.push(call);
          else settled.push(failedCall(call, endedWhileWaiting()));
        }
        settle(settled);
      }
    } catch (err) {
      settle([...open.values()].map((call) => failedCall(call, unreachable(err))));
      open.clear();
    }
    // A stream that ended without answering a call: say so rather than leave the guest waiting.
    settle([...open.values()].map((call) => failedCall(call, pageFailure())));
    waiting = again;
  }
}

/** A lone call goes as `run.invoke`, unbatched (plain JSON, no stream framing); its answer as one group. */
async function* lone(api: Api, runId: string, call: WireCall): AsyncGenerator<unknown> {
  const answer = await api.run.invoke.mutate({
    runId,
    module: call.module,
    export: call.export,
    args: call.args,
    callId: call.callId,
  });
  yield [{ callId: call.callId, answer }];
}

export function failedCall(call: WireCall, error: FailurePayload): WireCallResult {
  return callResult(call.callId, { ok: false, error });
}

export function endedWhileWaiting(): FailurePayload {
  return { code: "run_ended", message: "The action ended while this call waited." };
}

export function notOpened(): FailurePayload {
  return { code: "run_ended", message: "The action's run could not be opened on the server; nothing was run." };
}

export function pageFailure(): FailurePayload {
  return { code: "capability_failed", message: "The page could not serve this call; nothing more is known." };
}

function unreachable(err: unknown): FailurePayload {
  return {
    code: "capability_failed",
    message: `The server could not be reached: ${err instanceof Error ? err.message : "network error"}. Retry later.`,
  };
}
