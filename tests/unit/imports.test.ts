/**
 * No import cycles, and the folder direction of DESIGN.md section 3, on the real tree. The rules are
 * first shown to fire on small in-memory trees, so a clean real tree means something. Last step of
 * `npm run check`.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { diskTree, memoryTree, walkImports } from "./import-walk.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function violationsOf(sources: Record<string, string>): Promise<string[]> {
  return (await walkImports(memoryTree(sources))).violations;
}

describe("the project tree", () => {
  it("has no import cycle and respects the folder direction", async () => {
    const report = await walkImports(diskTree(ROOT));
    expect(report.violations).toEqual([]);
    // Not vacuous: the walk saw the gate and its runtime import of the spec table.
    expect(report.edges).toContainEqual({
      from: "shared/gate/invoke.ts",
      specifier: "../capabilities/table.ts",
      kind: "runtime",
      to: "shared/capabilities/table.ts",
    });
  });
});

describe("the rules fire", () => {
  it("on a runtime cycle, naming its files", async () => {
    const violations = await violationsOf({
      "shared/a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;',
      "shared/b.ts": 'import { c } from "./c.ts";\nexport const b = c;',
      "shared/c.ts": 'import { a } from "./a.ts";\nexport const c = () => a;',
    });
    expect(violations).toEqual(["import cycle: shared/a.ts -> shared/b.ts -> shared/c.ts -> shared/a.ts"]);
  });

  it("on a self-import and on a cycle through a re-export or a literal dynamic import", async () => {
    expect(await violationsOf({ "worker/a.ts": 'export * from "./a.ts";' })).toHaveLength(1);
    expect(
      await violationsOf({
        "server-bridge/registry.ts": 'export const load = () => import("./capabilities/x.ts");',
        "server-bridge/capabilities/x.ts": 'import { load } from "../registry.ts";\nexport const y = load;',
      }),
    ).toEqual([expect.stringMatching(/^import cycle: /)]);
  });

  it("on a cycle through a template-literal import(), expanded over the walked files", async () => {
    const violations = await violationsOf({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture is source text holding a template literal
      "server-bridge/registry.ts": "export const load = (ns: string) => import(`./capabilities/${ns}.ts`);",
      "server-bridge/capabilities/memory.ts": "export const memory = 1;",
      "server-bridge/capabilities/workflows.ts": 'import { load } from "../registry.ts";\nexport const w = load;',
    });
    expect(violations).toEqual([
      "import cycle: server-bridge/capabilities/workflows.ts -> server-bridge/registry.ts -> server-bridge/capabilities/workflows.ts",
    ]);
  });

  it("not on a cycle that exists only in types", async () => {
    expect(
      await violationsOf({
        "shared/a.ts": 'import type { B } from "./b.ts";\nexport interface A { b: B }',
        "shared/b.ts": 'import { A } from "./a.ts";\nexport interface B { a: A }',
      }),
    ).toEqual([]);
  });

  it("when shared imports another folder, even for types", async () => {
    const tree = {
      "shared/x.ts": 'import { y } from "../web/y.ts";\nexport const x = y;',
      "shared/t.ts": 'import type { Y } from "../worker/y.ts";\nexport type T = Y;',
      "shared/u.ts": 'export type U = typeof import("../server-bridge/z.ts");',
      "web/y.ts": "export const y = 1;",
      "worker/y.ts": "export type Y = number;",
      "server-bridge/z.ts": "export const z = 1;",
    };
    expect(await violationsOf(tree)).toEqual([
      expect.stringMatching(/^shared\/t\.ts -> "\.\.\/worker\/y\.ts" \(type\): shared\/ imports none/),
      expect.stringMatching(/^shared\/u\.ts -> "\.\.\/server-bridge\/z\.ts" \(type\)/),
      expect.stringMatching(/^shared\/x\.ts -> "\.\.\/web\/y\.ts" \(runtime\)/),
    ]);
  });

  it("when shared imports a Node module, with or without the node: prefix", async () => {
    const violations = await violationsOf({
      "shared/a.ts": 'import { readFileSync } from "node:fs";\nexport const a = readFileSync;',
      "shared/b.ts": 'import path from "path";\nexport const b = path.sep;',
      "shared/c.ts": 'import { z } from "zod";\nexport const c = z.string();',
      "server-bridge/d.ts": 'import { readFileSync } from "node:fs";\nexport const d = readFileSync;',
    });
    expect(violations).toEqual([
      expect.stringMatching(/^shared\/a\.ts -> "node:fs".*must not import Node modules/),
      expect.stringMatching(/^shared\/b\.ts -> "path"/),
    ]);
  });

  it("when web imports server-bridge at runtime, but not for `import type` or a type-only use", async () => {
    const violations = await violationsOf({
      "server-bridge/router.ts": "export const router = {};\nexport type AppRouter = typeof router;",
      "web/ok-type.ts": 'import type { AppRouter } from "../server-bridge/router.ts";\nexport type R = AppRouter;',
      "web/ok-elided.ts": 'import { AppRouter } from "../server-bridge/router.ts";\nexport type R = AppRouter;',
      "web/bad.ts": 'import { router } from "../server-bridge/router.ts";\nexport const r = router;',
    });
    expect(violations).toEqual([
      expect.stringMatching(/^web\/bad\.ts -> "\.\.\/server-bridge\/router\.ts" \(runtime\): web\/ may import/),
    ]);
  });

  it("when web imports worker code, but not for a worker entry URL, a ?worker import or `import type`", async () => {
    const violations = await violationsOf({
      "worker/entry-browser.ts": "export type WorkerApi = { run(): void };\nexport const api = 1;",
      "web/client.ts": [
        'import type { WorkerApi } from "../worker/entry-browser.ts";',
        'import EntryWorker from "../worker/entry-browser.ts?worker";',
        'export const url = new URL("../worker/entry-browser.ts", import.meta.url);',
        "export const make = (): WorkerApi | Worker => new EntryWorker();",
      ].join("\n"),
      "web/panel.tsx": [
        'import { api } from "../worker/entry-browser.ts";',
        "export const Panel = () => <div>{api}</div>;",
      ].join("\n"),
    });
    expect(violations).toEqual([
      expect.stringMatching(/^web\/panel\.tsx -> "\.\.\/worker\/entry-browser\.ts" \(runtime\): web\/ may use/),
    ]);
  });

  it("when worker imports web or server-bridge, even for types", async () => {
    const violations = await violationsOf({
      "worker/host.ts": [
        'import type { Ui } from "../web/ui.ts";',
        'import { limits } from "../server-bridge/limits.ts";',
        "export const host = (u: Ui) => [u, limits];",
      ].join("\n"),
      "web/ui.ts": "export type Ui = string;",
      "server-bridge/limits.ts": "export const limits = 1;",
    });
    expect(violations).toEqual([
      expect.stringMatching(/^worker\/host\.ts -> "\.\.\/server-bridge\/limits\.ts" \(runtime\): worker\/ never/),
      expect.stringMatching(/^worker\/host\.ts -> "\.\.\/web\/ui\.ts" \(type\): worker\/ never imports web/),
    ]);
  });

  it("when project code imports tests/, while tests/ and bench/ may import anything", async () => {
    const violations = await violationsOf({
      "shared/a.ts": 'import { fixture } from "../tests/fixture.ts";\nexport const a = fixture;',
      "tests/fixture.ts": 'import { r } from "../server-bridge/r.ts";\nexport const fixture = r;',
      "bench/b.ts": 'import { w } from "../web/w.ts";\nexport const b = w;',
      "server-bridge/r.ts": "export const r = 1;",
      "web/w.ts": "export const w = 1;",
    });
    expect(violations).toEqual([expect.stringMatching(/^shared\/a\.ts -> .*tests\/ is only ever an importer/)]);
  });

  it("on a relative import that names no file", async () => {
    expect(await violationsOf({ "shared/a.ts": 'import { b } from "./b";\nexport const a = b;' })).toEqual([
      'shared/a.ts: "./b" does not resolve to a file (use an explicit .ts extension)',
    ]);
  });

  it("not on import text inside a string", async () => {
    const contract = 'export const CONTRACT = `\nimport fs from "node:fs";\nimport { x } from "./nowhere.js";\n`;';
    expect(await violationsOf({ "shared/contract.ts": contract })).toEqual([]);
  });
});
