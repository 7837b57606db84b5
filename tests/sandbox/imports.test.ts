/** The static import check and the facades it checks against. */
import { describe, expect, it } from "vitest";
import { defaultLibrary } from "../../server-bridge/packs/index.ts";
import { MODULES } from "../../shared/capabilities/table.ts";
import { capabilityExports, facadeSource, packFacadeSource } from "../../shared/sandbox/facade.ts";
import { analyseAction } from "../../shared/sandbox/imports.ts";

const scope = { mounted: ["workflows", "memory"], packs: defaultLibrary().packInfo(["csv"]) };

describe("static import check", () => {
  it("accepts mounted modules, allowed packs and their exports", () => {
    const a = analyseAction(
      `import { workflows, list_workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
       import csv, { parse } from "@nodetool-ai/sandbox-packs/csv";
       const m = await import("@nodetool-ai/sandbox-nodetool/memory");`,
      scope,
    );
    expect(a.ok).toBe(true);
  });

  it("refuses an unmounted module, naming it, listing the available ones, with a near-match hint", () => {
    const a = analyseAction(`\nimport { x } from "@nodetool-ai/sandbox-nodetool/workflow";`, scope);
    expect(a).toMatchObject({ ok: false, kind: "import", line: 2, error: { code: "import_refused" } });
    if (a.ok || a.kind !== "import") throw new Error("expected a refusal");
    expect(a.error.message).toBe(
      'Module "@nodetool-ai/sandbox-nodetool/workflow" cannot be imported in the sandbox (only capability modules and allowed library packs can). Did you mean "@nodetool-ai/sandbox-nodetool/workflows"? Available: @nodetool-ai/sandbox-nodetool/workflows, @nodetool-ai/sandbox-nodetool/memory, @nodetool-ai/sandbox-packs/csv.',
    );
  });

  it("refuses a real module that is not mounted, a pack not allowed, node builtins and literal dynamic imports", () => {
    for (const source of [
      `import "@nodetool-ai/sandbox-nodetool/shared";`,
      `import { zip } from "@nodetool-ai/sandbox-packs/zip";`,
      `import fs from "node:fs";`,
      `await import("fs");`,
      `export * from "nodetool:bridge";`,
    ]) {
      expect(analyseAction(source, scope)).toMatchObject({ ok: false, error: { code: "import_refused" } });
    }
  });

  it("says an action has no Node APIs when it imports Node's modules or a request package, and guesses nothing", () => {
    for (const specifier of ["fs", "node:path", "axios", "child_process"]) {
      const a = analyseAction(`import x from "${specifier}";`, scope);
      if (a.ok || a.kind !== "import") throw new Error("expected a refusal");
      expect(a.error.message).toContain(
        `Module "${specifier}" cannot be imported in the sandbox: an action has no Node or browser APIs, only capabilities (HTTP is http_request in the web module; files and images are assets). Available:`,
      );
      expect(a.error.suggestions).toEqual([]);
    }
    // A short unknown name is too little to guess from ("ui" for "fs" was no help).
    const short = analyseAction(`import x from "qz";`, { ...scope, mounted: ["ui", "workflows"] });
    if (short.ok || short.kind !== "import") throw new Error("expected a refusal");
    expect(short.error.message).not.toContain("Did you mean");
  });

  it("refuses a named import the module does not export, with a hint", () => {
    const a = analyseAction(`import { lsit_workflows } from "@nodetool-ai/sandbox-nodetool/workflows";`, scope);
    if (a.ok || a.kind !== "import") throw new Error("expected a refusal");
    expect(a.error.message).toMatch(/has no export "lsit_workflows"\. Did you mean "list_workflows"/);
  });

  it("wraps a top-level return, keeping lines", () => {
    const a = analyseAction(`import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";\nreturn 1;`, scope);
    if (!a.ok) throw new Error("expected ok");
    expect(a.source.split("\n")[1]).toBe("return 1;");
    expect(a.source).toMatch(/^export default await \(async \(\) => \{/);
  });
});

describe("facades", () => {
  it("export every wire name, the namespace object and default", () => {
    for (const module of MODULES) {
      const source = facadeSource(module.name);
      for (const spec of module.specs) {
        expect(source).toContain(`export const ${spec.name} = bind(M, ${JSON.stringify(spec.name)});`);
        expect(source).toContain(`${JSON.stringify(spec.method)}: ${spec.name}`);
      }
      expect(capabilityExports(module)).toEqual([...module.specs.map((s) => s.name), module.name, "default"]);
      expect(source).toContain(`export default ${module.name};`);
    }
  });

  it("a pack export named like its pack is the function; the namespace is the default export", () => {
    const [zip] = defaultLibrary().packInfo(["zip"]);
    const source = packFacadeSource(zip as never);
    expect(source).toContain('export const zip = bind(M, "zip");');
    expect(source).toContain("export default __namespace;");
  });
});
