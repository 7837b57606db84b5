import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Caller } from "../../server-bridge/auth/caller.ts";
import { meterWidgetCalls } from "../../server-bridge/trpc/widget-rules.ts";

let widgets = 0;
/** A widget caller's context as the router passes it (the meter reads only the caller's policy). */
function widgetCtx(callsPerMinute: number): Parameters<typeof meterWidgetCalls>[0] {
  const widget = {
    id: `wgt_meter_${++widgets}`,
    userId: "wuser_meter",
    origins: ["http://host.test"],
    modules: [],
    maxMode: "default" as const,
    maxActions: 1,
    callsPerMinute,
  };
  const caller = { user: "wuser_meter", via: "widget", session: "wcred", widget } as unknown as Caller;
  return { app: undefined as never, caller, sameOrigin: true };
}

/** Calls at `at` ms past 12:00:00: undefined when admitted, else the refusal's message. */
function callAt(ctx: ReturnType<typeof widgetCtx>, at: number, calls = 1): string | undefined {
  vi.setSystemTime(Date.UTC(2026, 11, 5, 12, 0, 0) + at);
  const refused = meterWidgetCalls(ctx, calls);
  if (!refused) return undefined;
  expect(refused).toMatchObject({ ok: false, error: { code: "invalid_call" } });
  return refused.ok ? "" : refused.error.message;
}

describe("a widget's calls per minute", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["Date"] }));
  afterEach(() => vi.useRealTimers());

  it("holds over any 60 seconds, not per clock minute: a burst at a minute's end is not renewed at the next", () => {
    const ctx = widgetCtx(3);
    for (let i = 0; i < 3; i++) expect(callAt(ctx, 59_900 + i)).toBeUndefined();
    expect(callAt(ctx, 60_100)).toMatch(/3 capability calls a minute and has used them; wait 60 s/);
    expect(callAt(ctx, 119_000)).toMatch(/wait 1 s/);
    expect(callAt(ctx, 120_000)).toBeUndefined();
  });

  it("frees a second's calls a full minute after that second, and counts a batch as its calls", () => {
    const ctx = widgetCtx(4);
    expect(callAt(ctx, 0, 2)).toBeUndefined();
    expect(callAt(ctx, 30_000, 2)).toBeUndefined();
    expect(callAt(ctx, 45_000)).toMatch(/wait 16 s/);
    expect(callAt(ctx, 60_999)).toMatch(/wait 1 s/);
    expect(callAt(ctx, 61_000, 2)).toBeUndefined();
    expect(callAt(ctx, 61_500)).toMatch(/wait 30 s/);
    expect(callAt(ctx, 91_000, 3)).toMatch(/wait 31 s/);
    expect(callAt(ctx, 91_000, 2)).toBeUndefined();
  });

  it("refuses a batch larger than the whole minute's allowance, saying so, without counting it", () => {
    const ctx = widgetCtx(3);
    expect(callAt(ctx, 0, 4)).toMatch(/batch of 4 capability calls is more than the 3 a minute this widget allows/);
    expect(callAt(ctx, 1, 3)).toBeUndefined();
  });

  it("leaves callers that are not widgets unmetered", () => {
    const ctx = widgetCtx(1);
    const script = { ...ctx, caller: { user: "owner", via: "bearer" } as unknown as Caller };
    for (let i = 0; i < 5; i++) expect(meterWidgetCalls(script, 10)).toBeUndefined();
  });
});
