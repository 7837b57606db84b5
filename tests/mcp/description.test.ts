/** The execute_code description: contract, catalog and MCP notes within 4,000 characters, every module on one line. */
import { describe, expect, it } from "vitest";
import { executeCodeDescription, methodsByCategory } from "../../server-bridge/mcp/description.ts";
import { defaultLibrary } from "../../server-bridge/packs/index.ts";
import { MODULE_NAMES, MODULES } from "../../shared/capabilities/table.ts";

describe("execute_code description", () => {
  const library = defaultLibrary();
  const text = executeCodeDescription({
    mounted: MODULE_NAMES,
    packs: library.packInfo([...library.names]),
    timeoutMs: 30_000,
  });

  it("stays within 4,000 characters with every namespace mounted", () => {
    expect(MODULE_NAMES.length).toBeGreaterThanOrEqual(9);
    expect(text.length).toBeLessThanOrEqual(4000);
  });

  it("lists each module once, its methods grouped by category, every method named", () => {
    for (const module of MODULES) {
      const line = `  ${module.name} - ${methodsByCategory(module.name)}`;
      expect(text.split("\n")).toContain(line);
      for (const spec of module.specs) expect(methodsByCategory(module.name)).toContain(spec.method);
    }
    expect(methodsByCategory("workflows")).toMatch(/^read: list, get.*; write: create, update, delete/);
    // The module list is the catalog: no second list of full specifiers.
    expect(text).not.toContain("@nodetool-ai/sandbox-nodetool/memory\n");
  });

  it("carries the contract, the packs, the common error codes, describe(), approvals and the way to images", () => {
    for (const needle of [
      "export default",
      "batch(",
      "capabilities()",
      "searchTools",
      "@nodetool-ai/sandbox-packs/csv",
      "30 s of run time",
      "permission_denied",
      "approval_timeout",
      "import_refused",
      "unknown_export",
      "view_image",
      "nodetool://capabilities",
      'describe("workflows.list")',
      'describe("contract")',
    ]) {
      expect(text).toContain(needle);
    }
  });
});
