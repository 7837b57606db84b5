import { describe, expect, it } from "vitest";
import type { WireCallResult } from "../../shared/protocol/worker.ts";
import { SettleBatcher } from "../../web/src/settle-batcher.ts";

const ok = (id: string): WireCallResult => ({ callId: id, ok: true, value: id });
const ids = (messages: WireCallResult[][]) => messages.map((m) => m.map((r) => r.callId));
/** Lets the batcher's next-task message (a MessageChannel post) run. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("the page's settle batcher", () => {
  it("sends an answer group as one message, at once", () => {
    const sent: WireCallResult[][] = [];
    const batcher = new SettleBatcher((results) => sent.push(results));
    batcher.addAll(Array.from({ length: 100 }, (_, i) => ok(String(i))));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toHaveLength(100);
  });

  it("collects what settles after the first send in the same task into one later message", async () => {
    const sent: WireCallResult[][] = [];
    const batcher = new SettleBatcher((results) => sent.push(results));
    batcher.expect(5);
    batcher.add(ok("a"));
    batcher.addAll([ok("b"), ok("c")]);
    batcher.add(ok("d"));
    expect(ids(sent)).toEqual([["a"]]);
    // A MessageChannel post and a timer are both tasks, in no promised order under load: wait for both.
    await nextTask();
    await nextTask();
    expect(ids(sent)).toEqual([["a"], ["b", "c", "d"]]);
    // The next task starts a new round: its first result goes at once again.
    batcher.addAll([ok("e")]);
    expect(ids(sent)).toEqual([["a"], ["b", "c", "d"], ["e"]]);
  });

  it("sends each result of calls made one after another at once, collecting nothing", async () => {
    const sent: WireCallResult[][] = [];
    const batcher = new SettleBatcher((results) => sent.push(results));
    // A guest awaiting each call: one call sent, its result back, the next call sent.
    for (const id of ["a", "b", "c"]) {
      batcher.expect(1);
      batcher.add(ok(id));
    }
    expect(ids(sent)).toEqual([["a"], ["b"], ["c"]]);
    await nextTask();
    await nextTask();
    expect(ids(sent)).toEqual([["a"], ["b"], ["c"]]);
  });

  it("sends nothing for an empty group and never the same result twice", async () => {
    const sent: WireCallResult[][] = [];
    const batcher = new SettleBatcher((results) => sent.push(results));
    batcher.expect(3);
    batcher.addAll([]);
    expect(sent).toHaveLength(0);
    batcher.addAll([ok("x"), ok("y")]);
    batcher.add(ok("z"));
    await nextTask();
    await nextTask();
    expect(ids(sent)).toEqual([["x", "y"], ["z"]]);
  });
});
