import { describe, expect, it } from "vitest";
import { callResult, readAnswer } from "../../web/src/ui-client.ts";

describe("the page's reading of a server answer", () => {
  it("keeps well-formed answers as they are", () => {
    expect(readAnswer({ pending: true })).toEqual({ pending: true });
    expect(readAnswer({ ok: true, value: { n: 1 }, waited_ms: 12 })).toEqual({
      ok: true,
      value: { n: 1 },
      waited_ms: 12,
    });
    expect(readAnswer({ ok: false, error: { code: "permission_denied", message: "no" } })).toEqual({
      ok: false,
      error: { code: "permission_denied", message: "no" },
    });
  });

  it("turns anything malformed into a coded failure instead of trusting it", () => {
    for (const bad of [null, "ok", 7, {}, { ok: "yes" }, { ok: false, error: { code: "not_a_code", message: "x" } }]) {
      const read = readAnswer(bad);
      expect(read).toMatchObject({ ok: false, error: { code: "capability_failed" } });
    }
  });

  it("tells the worker what it needs of an answer, and only that", () => {
    expect(callResult("3", { ok: true, value: 1 })).toEqual({ callId: "3", ok: true, value: 1 });
    expect(callResult("4", { ok: false, error: { code: "timeout", message: "late" }, waited_ms: 5 })).toEqual({
      callId: "4",
      ok: false,
      error: { code: "timeout", message: "late" },
      waited_ms: 5,
    });
  });
});
