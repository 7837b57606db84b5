/**
 * The registry's two halves agree: every spec in the eager table has an implementation attached to the
 * very same object (identity, not a copy), every implementation belongs to a table spec, and the
 * checked-in classification snapshot equals the registry.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LOADERS } from "../../server-bridge/capabilities/registry.ts";
import { allSpecs, MODULES } from "../../shared/capabilities/table.ts";

describe("registry drift", () => {
  it("has one implementation module per namespace and no other", () => {
    expect(Object.keys(LOADERS).sort()).toEqual(MODULES.map((m) => m.name).sort());
  });

  for (const module of MODULES) {
    it(`attaches ${module.name} implementations to the table's own spec objects`, async () => {
      const loader = LOADERS[module.name];
      expect(loader).toBeDefined();
      const impls = (await loader?.())?.default ?? [];
      const tableSpecs = new Set(module.specs);
      const implemented = new Set(impls.map((entry) => entry.spec));
      for (const entry of impls) {
        // A copied spec (same name, another object) fails here.
        expect(tableSpecs.has(entry.spec), `${entry.spec.name} is not the table's object`).toBe(true);
        expect(typeof entry.impl).toBe("function");
      }
      const missing = module.specs.filter((spec) => !implemented.has(spec)).map((s) => s.name);
      expect(missing, "specs without an implementation").toEqual([]);
      expect(impls.length, "an implementation listed twice").toBe(implemented.size);
    });
  }

  it("matches the checked-in name -> category snapshot exactly", () => {
    const snapshot = JSON.parse(
      readFileSync(new URL("../../shared/capabilities/categories.snapshot.json", import.meta.url), "utf8"),
    ) as Record<string, string>;
    const registry = Object.fromEntries(allSpecs().map((spec) => [spec.name, spec.category]));
    expect(registry).toEqual(snapshot);
  });
});
