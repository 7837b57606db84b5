/** The boundary encoding on the host side (shared/protocol/values.ts). */
import { describe, expect, it } from "vitest";
import {
  AssetRef,
  base64ToBytes,
  bytesToBase64,
  fromWire,
  isValueEncodingError,
  toWire,
} from "../../shared/protocol/values.ts";

describe("boundary encoding", () => {
  it("round-trips JSON, bytes and assets, escaping $-keys", () => {
    const value = {
      a: [1, "x", null, true],
      bytes: new Uint8Array([0, 1, 254, 255]),
      asset: new AssetRef("as_1"),
      $ref: { $$x: 1 },
    };
    const wire = toWire(value);
    expect(wire).toEqual({
      a: [1, "x", null, true],
      bytes: { $bytes: "AAH+/w==" },
      asset: { $asset: "as_1" },
      $$ref: { $$$x: 1 },
    });
    const back = fromWire(JSON.parse(JSON.stringify(wire))) as Record<string, unknown>;
    expect(back.bytes).toEqual(new Uint8Array([0, 1, 254, 255]));
    expect(back.asset).toEqual(new AssetRef("as_1"));
    expect(back.$ref).toEqual(Object.assign(Object.create(null), { $$x: 1 }));
  });

  it("decodes to null-prototype objects and keeps __proto__ an own key", () => {
    const back = fromWire(JSON.parse('{"__proto__": {"admin": true}, "k": 1}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(back)).toBeNull();
    expect(Object.keys(back)).toEqual(["__proto__", "k"]);
    expect(({} as { admin?: unknown }).admin).toBeUndefined();
  });

  it.each([
    ["a function", { f: () => 1 }, "value.f is a function"],
    ["a symbol", [Symbol("s")], "value[0] is a Symbol"],
    ["a BigInt", { n: 1n }, "value.n is a BigInt"],
    [
      "a cycle",
      (() => {
        const a: Record<string, unknown> = {};
        a.a = a;
        return a;
      })(),
      "value.a is a cycle",
    ],
    ["a class instance", { d: new Map() }, "value.d is a Map object"],
  ])("refuses %s with a typed error naming the path", (_label, value, message) => {
    try {
      toWire(value);
      expect.unreachable();
    } catch (err) {
      expect(isValueEncodingError(err)).toBe(true);
      expect((err as Error).message).toContain(message);
    }
  });

  it("refuses a malformed marker or an unescaped $-key on decode", () => {
    expect(() => fromWire({ $bytes: 1 })).toThrow(/\$bytes marker/);
    expect(() => fromWire({ $other: 1 })).toThrow(/unescaped \$-key/);
    expect(() => fromWire({ $bytes: "@@" })).toThrow(/malformed base64/);
  });

  it("base64 agrees with Node's", () => {
    for (const n of [0, 1, 2, 3, 4, 100, 9000]) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 37) % 256);
      expect(bytesToBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
      expect(base64ToBytes(Buffer.from(bytes).toString("base64"))).toEqual(bytes);
    }
  });
});
