/**
 * One model turn over an SDK stream, for both adapters: open the stream (the SDK retries as it is
 * configured), feed each chunk to the adapter's assembler, and end with its closing events, or with
 * exactly one `error` event. Never throws. Two bounds: Stop (the request's signal) is honoured at
 * once, even while an SDK sleeps before a retry (the OpenAI SDK's sleep does not watch the signal),
 * and the whole turn, connect to last chunk, has a deadline (the SDKs' own timeout ends when the
 * headers arrive, so a stream that stalls later would otherwise wait forever).
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
  /** Stop. */
  signal: AbortSignal;
  /** The whole turn's bound, connect to last chunk. */
  deadlineMs: number;
  /** Opens the SDK stream; `signal` aborts on Stop or at the deadline. */
  open(signal: AbortSignal): Promise<AsyncIterable<TChunk>>;
  assembler: TurnAssembler<TChunk>;
  /** What an SDK error means (read from its classes); `phase` says whether the stream had opened. */
  classify(err: unknown, phase: "open" | "stream"): ProviderFault;
  labels: ProviderLabels;
}

const ABORTED: unique symbol = Symbol("aborted");

export async function* turnStream<TChunk>(options: TurnStreamOptions<TChunk>): AsyncGenerator<ModelEvent> {
  const { signal, assembler, labels } = options;
  const call = new AbortController();
  let overdue = false;
  const timer = setTimeout(() => {
    overdue = true;
    call.abort();
  }, options.deadlineMs);
  const stop = () => call.abort();
  signal.addEventListener("abort", stop, { once: true });
  const fail = (fault: ProviderFault) => {
    const actual: ProviderFault = signal.aborted
      ? { kind: "aborted" }
      : overdue
        ? { kind: "timeout", phase: "answer" }
        : fault;
    return faultEvent(actual, labels);
  };
  try {
    if (signal.aborted) {
      yield fail({ kind: "aborted" });
      return;
    }
    let chunks: AsyncIterable<TChunk>;
    try {
      const opened = await untilAborted(options.open(call.signal), call.signal);
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
    if (call.signal.aborted) {
      yield fail({ kind: "aborted" });
      return;
    }
    const closing = assembler.finish();
    if (!closing) {
      yield fail({ kind: "cut" });
      return;
    }
    yield* closing;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", stop);
  }
}

/** `promise`, or ABORTED as soon as the signal aborts (the SDK settles the promise later; that is ignored). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  promise.catch(() => {});
  if (signal.aborted) return Promise.resolve(ABORTED);
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
