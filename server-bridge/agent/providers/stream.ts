/**
 * One model turn over an SDK stream, for both adapters: open the stream (the SDK retries as it is
 * configured), feed each chunk to the adapter's assembler, and end with its closing events, or with
 * exactly one `error` event. Never throws. Stop is honoured at once even while an SDK sleeps before a
 * retry (the OpenAI SDK's sleep does not watch the signal): the open is raced with the signal.
 */
import type { ModelEvent } from "../../../shared/agent/messages.ts";
import { faultEvent, type ProviderFault, type ProviderLabels } from "./failures.ts";

/** Turns a provider's chunks into ModelEvents. */
export interface TurnAssembler<TChunk> {
  /** The events this chunk completes (text at once; a tool call once it is whole). */
  push(chunk: TChunk): ModelEvent[];
  /** At the stream's clean end: the closing events (usage, done), or undefined if the provider never finished the message. */
  finish(): ModelEvent[] | undefined;
}

export interface TurnStreamOptions<TChunk> {
  signal: AbortSignal;
  open(): Promise<AsyncIterable<TChunk>>;
  assembler: TurnAssembler<TChunk>;
  /** What an SDK error means (read from its classes); `phase` says whether the stream had opened. */
  classify(err: unknown, phase: "open" | "stream"): ProviderFault;
  labels: ProviderLabels;
}

const ABORTED: unique symbol = Symbol("aborted");

export async function* turnStream<TChunk>(options: TurnStreamOptions<TChunk>): AsyncGenerator<ModelEvent> {
  const { signal, assembler, labels } = options;
  const fail = (fault: ProviderFault) => faultEvent(signal.aborted ? { kind: "aborted" } : fault, labels);
  if (signal.aborted) {
    yield fail({ kind: "aborted" });
    return;
  }
  let chunks: AsyncIterable<TChunk>;
  try {
    const opened = await untilAborted(options.open(), signal);
    if (opened === ABORTED) {
      yield fail({ kind: "aborted" });
      return;
    }
    chunks = opened;
  } catch (err) {
    yield fail(options.classify(err, "open"));
    return;
  }
  try {
    for await (const chunk of chunks) {
      let events: ModelEvent[];
      try {
        events = assembler.push(chunk);
      } catch {
        // A chunk the assembler cannot read is the provider's fault, not a cut connection.
        yield fail({ kind: "malformed" });
        return;
      }
      yield* events;
    }
  } catch (err) {
    yield fail(options.classify(err, "stream"));
    return;
  }
  // The SDKs end a stream quietly when its signal aborts.
  if (signal.aborted) {
    yield fail({ kind: "aborted" });
    return;
  }
  const closing = assembler.finish();
  if (!closing) {
    yield fail({ kind: "cut" });
    return;
  }
  yield* closing;
}

/** `promise`, or ABORTED as soon as the signal aborts (the SDK settles the promise later; that is ignored). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  promise.catch(() => {});
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
