/**
 * Call results that settle together go back to the worker as one one-way `settle` message: a batch of
 * a hundred calls whose answers arrive together costs the page and the worker two messages, not a
 * hundred. The first result goes at once (a lone call waits for nothing); the
 * ones that follow it in the same task are collected and sent as the next task starts, a MessageChannel
 * message, so no timer clamping delays them.
 */
import type { WireCallResult } from "../../shared/protocol/worker.ts";

export class SettleBatcher {
  readonly #send: (results: WireCallResult[]) => void;
  #queued: WireCallResult[] = [];
  #collecting = false;

  constructor(send: (results: WireCallResult[]) => void) {
    this.#send = send;
  }

  add(result: WireCallResult): void {
    if (this.#collecting) {
      this.#queued.push(result);
      return;
    }
    this.#collecting = true;
    nextTask(() => this.#flush());
    this.#send([result]);
  }

  #flush(): void {
    this.#collecting = false;
    const results = this.#queued;
    this.#queued = [];
    if (results.length > 0) this.#send(results);
  }
}

/** One channel for the page: each message runs the oldest callback waiting for the next task. */
let tasks: { port: MessagePort; waiting: (() => void)[] } | undefined;

function nextTask(fn: () => void): void {
  if (!tasks) {
    const channel = new MessageChannel();
    const state = { port: channel.port2, waiting: [] as (() => void)[] };
    channel.port1.onmessage = () => state.waiting.shift()?.();
    tasks = state;
  }
  tasks.waiting.push(fn);
  tasks.port.postMessage(null);
}
