/**
 * The plain-computation globals an action gets beside the ECMAScript ones (shared/sandbox/contract.ts
 * names them): TextEncoder/TextDecoder, atob/btoa, URL/URLSearchParams, structuredClone and crypto,
 * guest JS loaded on first use, with the host's randomness. Results are compared with what Node's own
 * implementations give for the same input.
 */
import { afterAll, describe, expect, it } from "vitest";
import { inProcessSandbox } from "./harness.ts";

const sandbox = inProcessSandbox(() => []);
afterAll(() => sandbox[Symbol.dispose]());

async function result(code: string): Promise<unknown> {
  const { observation } = await sandbox.run(code);
  if (!observation.ok) throw new Error(JSON.stringify(observation.error));
  return observation.result;
}

describe("guest globals", () => {
  it("TextEncoder and TextDecoder speak UTF-8 as the platform does", async () => {
    const text = "héllo €😀 \uD800 end";
    const out = (await result(`const bytes = new TextEncoder().encode(${JSON.stringify(text)});
      const into = new Uint8Array(5); const r = new TextEncoder().encodeInto("aé€", into);
      export default { bytes: Array.from(bytes), back: new TextDecoder().decode(bytes),
        bad: new TextDecoder().decode(new Uint8Array([0x61, 0xff, 0xe2, 0x82, 0x62])), into: [r.read, r.written],
        fatal: (() => { try { new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xff])); } catch (e) { return e.name; } })(),
        bom: new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])) };`)) as Record<string, unknown>;
    expect(out.bytes).toEqual([...new TextEncoder().encode(text)]);
    expect(out.back).toBe(new TextDecoder().decode(new TextEncoder().encode(text)));
    expect(out.bad).toBe(new TextDecoder().decode(new Uint8Array([0x61, 0xff, 0xe2, 0x82, 0x62])));
    expect(out.into).toEqual([2, 3]);
    expect(out.fatal).toBe("TypeError");
    expect(out.bom).toBe("A");
  });

  it("atob and btoa round-trip Latin-1 and refuse what the platform refuses", async () => {
    const out =
      (await result(`export default { b: btoa("hi\\u00ff"), a: atob(" aGk= "), e1: (() => { try { btoa("€"); } catch (e) { return e.name; } })(),
      e2: (() => { try { atob("a"); } catch (e) { return e.name; } })() };`)) as Record<string, unknown>;
    expect(out).toEqual({
      b: btoa("hi\u00ff"),
      a: atob("aGk="),
      e1: "InvalidCharacterError",
      e2: "InvalidCharacterError",
    });
  });

  it.each([
    ["HTTPS://User:pw@Example.COM:443/a/./b/../c d?x=1&y=é#frag", undefined],
    ["../x?q#h", "http://h.test/a/b/c"],
    ["//other.test/p", "https://h.test/a"],
    ["?only", "http://h.test/a/b?old#f"],
    ["#frag", "http://h.test/a/b?q"],
    ["/abs/../path", "http://h.test/a/b"],
    ["http://[0:0:0:0:0:0:0:1]:8080/", undefined],
    ["http://bücher.example/", undefined],
    ["http://192.168.0.1:80/x", undefined],
    ["mailto:a@b.c?subject=x y", undefined],
    ["data:text/plain,hello world", undefined],
    ["file:///tmp/a%20b", undefined],
    ["ws://h.test:8080/socket", undefined],
    ["http:\\\\h.test\\a\\b", undefined],
  ])("URL parses %s (base %s) as the platform does", async (input, base) => {
    const fields = [
      "href",
      "origin",
      "protocol",
      "username",
      "password",
      "host",
      "hostname",
      "port",
      "pathname",
      "search",
      "hash",
    ];
    const args = base === undefined ? JSON.stringify(input) : `${JSON.stringify(input)}, ${JSON.stringify(base)}`;
    const out = await result(
      `const u = new URL(${args}); export default Object.fromEntries(${JSON.stringify(fields)}.map((f) => [f, u[f]]));`,
    );
    const expected = new URL(input, base);
    expect(out).toEqual(Object.fromEntries(fields.map((f) => [f, expected[f as keyof URL]])));
  });

  it("URL refuses what is not a URL, and searchParams is live both ways", async () => {
    const out = (await result(`const u = new URL("https://h.test/p?a=1&b=2");
      u.searchParams.set("a", "x y"); u.searchParams.delete("b"); const afterParams = u.href;
      u.search = "?c=3"; const params = [...u.searchParams];
      u.hash = "top"; u.pathname = "/q r"; u.port = "8443";
      export default { afterParams, params, href: u.href, json: JSON.stringify({ u }),
        bad: [URL.canParse("nope"), URL.canParse("http://"), URL.canParse("x", "mailto:a")],
        thrown: (() => { try { new URL("::"); } catch (e) { return e.name; } })(),
        sorted: (() => { const p = new URLSearchParams("b=2&a=1&a=0"); p.sort(); return p.toString(); })(),
        fromObject: new URLSearchParams({ k: "v w", n: 1 }).toString(), all: new URLSearchParams("a=1&a=2").getAll("a") };`)) as Record<
      string,
      unknown
    >;
    expect(out).toEqual({
      afterParams: "https://h.test/p?a=x+y",
      params: [["c", "3"]],
      href: "https://h.test:8443/q%20r?c=3#top",
      json: '{"u":"https://h.test:8443/q%20r?c=3#top"}',
      bad: [false, false, false],
      thrown: "TypeError",
      sorted: "a=1&a=0&b=2",
      fromObject: "k=v+w&n=1",
      all: ["1", "2"],
    });
  });

  it("structuredClone copies deeply, keeps cycles, and refuses functions", async () => {
    const out =
      (await result(`const a = { d: new Date(5), m: new Map([[1, new Set(["s"])]]), b: new Uint16Array([1, 2]), r: /x/gi, e: new RangeError("r") };
      a.self = a; const c = structuredClone(a);
      export default { same: c === a, cycle: c.self === c, date: c.d instanceof Date && c.d.getTime(), set: c.m.get(1).has("s"),
        view: [c.b instanceof Uint16Array, c.b[1], c.b.buffer !== a.b.buffer], re: String(c.r), err: [c.e instanceof RangeError, c.e.message],
        fn: (() => { try { structuredClone({ f() {} }); } catch (e) { return e.name; } })() };`)) as Record<
        string,
        unknown
      >;
    expect(out).toEqual({
      same: false,
      cycle: true,
      date: 5,
      set: true,
      view: [true, 2, true],
      re: "/x/gi",
      err: [true, "r"],
      fn: "DataCloneError",
    });
  });

  it("crypto gives the host's randomness: getRandomValues fills integer arrays, randomUUID is a v4 UUID", async () => {
    const out = (await result(`const a = new Uint32Array(64); crypto.getRandomValues(a);
      const b = new Uint8Array(64); crypto.getRandomValues(b);
      export default { distinct: new Set(a).size, sameAsB: a.every((x, i) => x === b[i]), uuids: [crypto.randomUUID(), crypto.randomUUID()],
        floats: (() => { try { crypto.getRandomValues(new Float64Array(2)); } catch (e) { return e.name; } })(),
        quota: (() => { try { crypto.getRandomValues(new Uint8Array(65537)); } catch (e) { return e.name; } })() };`)) as Record<
      string,
      unknown
    >;
    expect(out.distinct).toBeGreaterThan(60);
    expect(out.sameAsB).toBe(false);
    const uuids = out.uuids as string[];
    for (const uuid of uuids)
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuids[0]).not.toBe(uuids[1]);
    expect([out.floats, out.quota]).toEqual(["TypeError", "QuotaExceededError"]);
  });

  it("are loaded only when read: an action that uses none of them pays for none", async () => {
    const out = await result(
      `const d = Object.getOwnPropertyDescriptor(globalThis, "URL"); export default [typeof d.get, typeof URL, typeof Object.getOwnPropertyDescriptor(globalThis, "URL").value];`,
    );
    expect(out).toEqual(["function", "function", "function"]);
  });

  it("cannot be subverted by prototypes tampered with before their first use", async () => {
    const use = `const bytes = new TextEncoder().encode("aé€");
      const url = new URL("https://Example.com/a/../b?x=1&y=%C3%A9");
      const copy = structuredClone({ list: [1, [2]], when: new Date(0) });
      export default { bytes: Array.from(bytes), back: new TextDecoder().decode(bytes), b64: btoa("hi"),
        href: url.href, y: url.searchParams.get("y"), copy: [copy.list[1][0], copy.when.getTime()],
        uuid: crypto.randomUUID().length, logs: typeof console.log("logged", [1, 2]) };`;
    const untouched = await sandbox.run(use);
    // Replaced before anything of the sandbox's own loaded: the modules behind these globals (and the
    // value encoder, the log formatter) are evaluated only now, after the tampering.
    const tampered = await sandbox.run(`
      const broken = () => { throw new Error("tampered builtin called"); };
      Array.prototype.push = broken; Array.prototype.join = broken; String.prototype.charCodeAt = broken;
      String.fromCharCode = broken; Object.defineProperty = broken; Object.freeze = broken; JSON.stringify = broken;
      Object.keys = broken; Map.prototype.get = broken; globalThis.Uint8Array = broken; globalThis.Error = broken;
      ${use}`);
    expect(untouched.observation.error).toBeUndefined();
    expect(untouched.observation).toMatchObject({ ok: true, logs: ["logged [1,2]"] });
    expect(tampered.observation.result).toEqual(untouched.observation.result);
    expect(tampered.observation.logs).toEqual(untouched.observation.logs);
    expect(untouched.observation.result).toMatchObject({
      bytes: [...new TextEncoder().encode("aé€")],
      back: "aé€",
      b64: "aGk=",
      href: "https://example.com/b?x=1&y=%C3%A9",
      y: "é",
      copy: [2, 0],
      uuid: 36,
    });
  });
});
