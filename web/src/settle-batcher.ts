/**
 * Call results that settle together go back to the worker as one one-way `settle` message: a batch of
 * a hundred calls whose answers arrive in one group costs the page and the worker one message, not a
 * hundred. What settles first goes at once (a lone call, or a whole answer group, waits for nothing);
 * while more results are still expected (`expect` counts the calls sent), those that follow it in the
 * same task are collected and sent as the next task starts, a MessageChannel message, so no timer
 * clamping delays them. The last expected result needs no such task: nothing can follow it.
 */
import type { WireCallResult } from "../../shared/protocol/worker.ts";

export class SettleBatcher {
  readonly #send: (results: WireCallResult[]) => void;
  #queued: WireCallResult[] = [];
  #collecting = false;
  /** Results still expected: calls sent and not yet settled. */
  #outstanding = 0;

  constructor(send: (results: WireCallResult[]) => void) {
    this.#send = send;
  }

  /** `count` more calls were sent: their results are on their way. */
  expect(count: number): void {
    this.#outstanding += count;
  }

  add(result: WireCallResult): void {
    this.addAll([result]);
  }

  /** Results that settled together (one answer group): one message, unless a send this task went first. */
  addAll(results: readonly WireCallResult[]): void {
    if (results.length === 0) return;
    this.#outstanding = Math.max(0, this.#outstanding - results.length);
    if (this.#collecting) {
      this.#queued.push(...results);
      return;
    }
    if (this.#outstanding > 0) {
      this.#collecting = true;
      nextTask(() => this.#flush());
    }
    this.#send([...results]);
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
