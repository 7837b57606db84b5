/**
 * The sandbox's own guest modules reach builtins only through the copies capture.js took before
 * the action ran (tests/hostile/tamper.test.ts replaces each of those in turn). The lint is first shown
 * to fire on code that does each forbidden thing, so a clean tree means something.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tokenizer } from "acorn";
import { describe, expect, it } from "vitest";
import { MODULE_NAMES } from "../../shared/capabilities/table.ts";
import { facadeSource, nodetoolShimSource } from "../../shared/sandbox/facade.ts";
import { withoutComments } from "../../worker/host/guest-sources.ts";
import { guestLint } from "./guest-lint.ts";

const GUEST = fileURLToPath(new URL("../../worker/guest/", import.meta.url));

describe("guest modules", () => {
  const files = readdirSync(GUEST).filter((f) => f.endsWith(".js") && f !== "capture.js");

  it.each(files)("%s uses only captured intrinsics", (file) => {
    expect(guestLint(readFileSync(join(GUEST, file), "utf8"))).toEqual([]);
  });

  it.each([...files, "capture.js"])("%s ships without its comments, token for token the same", (file) => {
    const source = readFileSync(join(GUEST, file), "utf8");
    const tokens = (text: string) =>
      [...tokenizer(text, { ecmaVersion: "latest", sourceType: "module" })].map((t) => [
        t.type.label,
        (t as { value?: unknown }).value,
      ]);
    const shipped = withoutComments(source);
    expect(shipped.length).toBeLessThan(source.length);
    expect(tokens(shipped)).toEqual(tokens(source));
  });

  it("covers every guest module but the one that captures", () => {
    expect(files).toEqual(expect.arrayContaining(["setup.js", "values.js", "format.js", "batch.js", "helpers.js"]));
    expect(files).toEqual(expect.arrayContaining(["graph-model.js", "bridge.js", "errors.js"]));
  });

  it("generated facades and the nodetool shim use only what the bridge gives them", () => {
    for (const name of MODULE_NAMES) expect(guestLint(facadeSource(name)), name).toEqual([]);
    expect(guestLint(nodetoolShimSource(MODULE_NAMES))).toEqual([]);
  });
});

describe("the lint fires", () => {
  it.each([
    ["a global", "export const f = (x) => JSON.stringify(x);", "JSON is a global"],
    ["a prototype method", "export const f = (xs) => xs.map((x) => x);", ".map() is a builtin method"],
    ["instanceof", "import { ErrorCtor } from 'x'; export const f = (e) => e instanceof ErrorCtor;", "instanceof"],
    ["for...of", "export function f(xs) { let n = 0; for (const x of xs) n += x; return n; }", "for...of"],
    ["a spread call", "export const f = (g, xs) => g(...xs);", "spread"],
    ["array destructuring", "export const f = (p) => { const [a] = p; return a; };", "array destructuring"],
    ["a builtin getter", "export const f = (m) => m.size;", ".size runs a builtin getter"],
    ["a global constructor", "export const f = () => new Map();", "Map is a global"],
  ])("on %s", (_label, source, message) => {
    expect(guestLint(source).join("\n")).toContain(message);
  });

  it("and not on what the guest modules do instead", () => {
    const source = `import { ArrayPrototypePush, isInstanceOf, ErrorCtor } from "nodetool:intrinsics";
      export function f(list, x, { a, b: [c] = [] } = {}, ...rest) {
        ArrayPrototypePush(list, x);
        const o = { ...x, [a]: rest, c };
        label: for (let i = 0; i < rest.length; i++) { if (i) break label; }
        return isInstanceOf(o, ErrorCtor) ? undefined : o.key;
      }`;
    expect(guestLint(source)).toEqual(["2:42 array destructuring runs the iterator protocol"]);
  });
});
