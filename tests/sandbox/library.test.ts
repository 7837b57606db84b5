/** The library dispatcher and the first-party packs. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createLibrary } from "../../server-bridge/packs/dispatch.ts";
import { defaultLibrary } from "../../server-bridge/packs/index.ts";
import { defineExport, definePack } from "../../server-bridge/packs/types.ts";

const noop = defineExport({ name: "noop", description: "", signature: "", input: z.object({}), run: () => null });
const lib = defaultLibrary();
const call = (module: string, exp: string, args: unknown) =>
  lib.dispatch({ module: `@nodetool-ai/sandbox-packs/${module}`, export: exp, args });

describe("library packs", () => {
  it("refuses a manifest that claims a capability module id or another pack's id", () => {
    expect(() => createLibrary([definePack({ name: "workflows", description: "", exports: [noop] })])).toThrow(
      /capability module/,
    );
    const twice = definePack({ name: "twice", description: "", exports: [noop] });
    expect(() => createLibrary([twice, twice])).toThrow(/another pack/);
  });

  it("csv parses and unparses", async () => {
    expect(await call("csv", "parse", ["a,b\n1,2\n"])).toEqual({
      ok: true,
      value: { data: [{ a: "1", b: "2" }], fields: ["a", "b"], errors: [] },
    });
    expect(await call("csv", "unparse", [[{ a: 1, b: "x,y" }]])).toEqual({ ok: true, value: 'a,b\r\n1,"x,y"' });
  });

  it("zip round-trips bytes", async () => {
    const zipped = await call("zip", "zip", [{ "x.txt": "hi" }]);
    if (!zipped.ok) throw new Error("zip failed");
    expect(await call("zip", "unzip", [zipped.value, { as: "text" }])).toMatchObject({
      ok: true,
      value: { "x.txt": "hi" },
    });
  });

  it("runs the ladder: unknown pack, unknown export, non-array args, invalid arguments, not allowed", async () => {
    expect((await call("nope", "parse", [])).ok).toBe(false);
    expect(await call("csv", "prase", [])).toMatchObject({ ok: false, error: { code: "unknown_export" } });
    expect(await call("csv", "parse", "a,b")).toMatchObject({ ok: false, error: { code: "invalid_call" } });
    expect(await call("csv", "parse", [{ text: 5 }])).toMatchObject({
      ok: false,
      error: { code: "invalid_tool_arguments", issues: [expect.stringMatching(/^text:/)] },
    });
    const refused = await lib.dispatch({ module: "@nodetool-ai/sandbox-packs/csv", export: "parse", args: ["a"] }, [
      "zip",
    ]);
    expect(refused).toMatchObject({ ok: false, error: { code: "unknown_module" } });
  });
});
