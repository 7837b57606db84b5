/**
 * The page's stores (web/src/external-store.ts): `publish` tells every subscriber at once;
 * `publishSoon` tells them once for a whole burst of changes (a run's progress events), while
 * `getSnapshot` has each change at once.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ExternalStore } from "../../web/src/external-store.ts";

class Counter extends ExternalStore<number> {
  constructor() {
    super(0);
  }
  set(value: number): void {
    this.publish(value);
  }
  step(value: number): void {
    this.publishSoon(value);
  }
}

describe("ExternalStore", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("tells subscribers once for a burst of changes published soon, and at once for one published now", () => {
    const store = new Counter();
    const heard: number[] = [];
    store.subscribe(() => heard.push(store.getSnapshot()));

    for (let i = 1; i <= 600; i++) store.step(i);
    expect(store.getSnapshot()).toBe(600);
    expect(heard).toEqual([]);
    vi.runAllTimers();
    expect(heard).toEqual([600]);

    // A change published now, after steps still waiting, is told at once, and the wait is over.
    store.step(601);
    store.set(700);
    expect(heard).toEqual([600, 700]);
    vi.runAllTimers();
    expect(heard).toEqual([600, 700]);
  });
});
