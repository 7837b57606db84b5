/**
 * Facade source generator (DESIGN.md section 6). The sandbox's module loader is synchronous, so every
 * facade is plain ES module source generated here from the spec table before the action runs.
 *
 * A capability facade exports every wire name as an `async` function that forwards
 * `(moduleKey, wireName, args)` to the private bridge module, plus a frozen namespace object named
 * after the module with the short method names (`workflows.list`), which is also the default export;
 * reading a method it lacks throws `unknown_export` (the bridge's `guard`).
 * Pack facades have the same shape over a pack's export names. Only generated facades (and the
 * sandbox's own setup modules) may import the bridge; the loader enforces that.
 */
import {
  findModule,
  findSpec,
  inputJsonSchema,
  MODULES,
  moduleOf,
  moduleSpecifier,
  outputJsonSchema,
  PACK_PREFIX,
} from "../capabilities/table.ts";
import type { AnySpec, ModuleSpecs } from "../capabilities/types.ts";
import type { PackInfo } from "../protocol/worker.ts";

/** The private bridge; a name no action can resolve (the loader refuses it outside facades). */
export const BRIDGE_SPECIFIER = "nodetool:bridge";
/** Guest helper modules (batch, values, errors), importable by sandbox setup code only. */
export const INTERNAL_PREFIX = "nodetool:";

export function packSpecifier(name: string): string {
  return `${PACK_PREFIX}${name}`;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function assertIdentifier(name: string, what: string): void {
  if (!IDENT.test(name)) throw new Error(`${what} "${name}" is not a JavaScript identifier`);
}

/**
 * Names a facade exports: every wire name, the namespace object, and `default`. When an export has
 * the module's own name (the `zip` pack's `zip`), that name is the function and the namespace object
 * is the default export only.
 */
export function capabilityExports(module: ModuleSpecs): string[] {
  return exportNames(
    module.name,
    module.specs.map((s) => s.name),
  );
}

export function packExports(pack: PackInfo): string[] {
  return exportNames(
    pack.name,
    pack.exports.map((e) => e.name),
  );
}

function exportNames(namespace: string, wires: readonly string[]): string[] {
  return wires.includes(namespace) ? [...wires, "default"] : [...wires, namespace, "default"];
}

function facade(specifier: string, namespace: string, entries: readonly { wire: string; method: string }[]): string {
  assertIdentifier(namespace, "namespace");
  // `bind` (worker/guest/bridge.js) makes each export: this source is compiled on every action that
  // imports the module, so it stays a few tokens per export.
  const lines = [
    `import { bind, freeze, guard } from ${JSON.stringify(BRIDGE_SPECIFIER)};`,
    `const M = ${JSON.stringify(specifier)};`,
  ];
  for (const { wire } of entries) {
    assertIdentifier(wire, "export");
    lines.push(`export const ${wire} = bind(M, ${JSON.stringify(wire)});`);
  }
  const members = entries.map(({ wire, method }) => `${JSON.stringify(method)}: ${wire}`).join(", ");
  const shadowed = entries.some((e) => e.wire === namespace);
  const local = shadowed ? "__namespace" : namespace;
  lines.push(
    `${shadowed ? "" : "export "}const ${local} = guard(M, freeze({ ${members} }));`,
    `export default ${local};`,
  );
  return lines.join("\n");
}

const capabilityCache = new Map<string, string>();

/** Facade source of one capability namespace (`workflows`). */
export function facadeSource(namespace: string): string {
  let source = capabilityCache.get(namespace);
  if (source !== undefined) return source;
  const module = findModule(namespace);
  if (!module) throw new Error(`unknown capability namespace "${namespace}"`);
  source = facade(
    moduleSpecifier(module.name),
    module.name,
    module.specs.map((s) => ({ wire: s.name, method: s.method })),
  );
  capabilityCache.set(namespace, source);
  return source;
}

export function packFacadeSource(pack: PackInfo): string {
  return facade(
    packSpecifier(pack.name),
    pack.name,
    pack.exports.map((e) => ({ wire: e.name, method: e.name })),
  );
}

/** Shim sources by mount set (a worker sees few sets; bounded all the same). */
const shimCache = new Map<string, string>();

/**
 * The `nodetool` global's value: a shim over the same bridge calls as the facades, for mounted
 * namespaces only (`nodetool.workflows.list(...)` is `workflows.list(...)`). Setup evaluates this module
 * the first time an action reads `nodetool` (never on a start that does not); `shim`
 * (worker/guest/namespaces.js) builds each namespace object when first touched, from a method table kept as one string literal
 * (cheap to compile). The source depends only on the mount set and is generated once per set.
 */
export function nodetoolShimSource(mounted: readonly string[]): string {
  const key = mounted.join("\n");
  let source = shimCache.get(key);
  if (source !== undefined) return source;
  const table: Record<string, [string, [string, string][]]> = {};
  for (const name of mounted) {
    const module = findModule(name);
    if (module) table[name] = [moduleSpecifier(name), module.specs.map((s) => [s.method, s.name])];
  }
  source = [
    `import { shim } from "${INTERNAL_PREFIX}namespaces";`,
    `export default shim(${JSON.stringify(JSON.stringify(table))});`,
  ].join("\n");
  if (shimCache.size > 64) shimCache.clear();
  shimCache.set(key, source);
  return source;
}

/** One catalog row, for `capabilities()` and `searchTools()` in the guest. */
export interface CatalogEntry {
  module: string;
  namespace: string;
  name: string;
  method: string;
  signature: string;
  description: string;
  category?: string;
}

/** `workflows.get(workflow_id: string)`, from the spec's JSON Schema (never written by hand). */
export function signatureOf(namespace: string, spec: AnySpec): string {
  const schema = inputJsonSchema(spec) as { properties?: Record<string, { type?: unknown }>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const params = Object.entries(schema.properties ?? {}).map(([key, prop]) => {
    const type = Array.isArray(prop.type) ? prop.type.join("|") : typeof prop.type === "string" ? prop.type : "any";
    return `${key}${required.has(key) ? "" : "?"}: ${type}`;
  });
  return `${namespace}.${spec.method}({ ${params.join(", ")} })`;
}

const specCatalog = new Map<string, CatalogEntry>();

export function catalog(mounted: readonly string[], packs: readonly PackInfo[]): CatalogEntry[] {
  const rows: CatalogEntry[] = [];
  for (const module of MODULES) {
    if (!mounted.includes(module.name)) continue;
    for (const spec of module.specs) {
      let row = specCatalog.get(spec.name);
      if (!row) {
        row = {
          module: moduleSpecifier(module.name),
          namespace: module.name,
          name: spec.name,
          method: spec.method,
          signature: signatureOf(module.name, spec),
          description: spec.description,
          category: spec.category,
        };
        specCatalog.set(spec.name, row);
      }
      rows.push(row);
    }
  }
  for (const pack of packs) {
    for (const entry of pack.exports) {
      rows.push({
        module: packSpecifier(pack.name),
        namespace: pack.name,
        name: entry.name,
        method: entry.name,
        signature: entry.signature ?? `${pack.name}.${entry.name}(...)`,
        description: entry.description,
      });
    }
  }
  return rows;
}

/** A mounted capability's input and output JSON Schemas, for `searchTools()` hits (none for a pack). */
export function catalogSchemas(
  name: string,
  mounted: readonly string[],
): { input_schema?: unknown; output_schema?: unknown } {
  const spec = findSpec(name);
  const module = spec ? moduleOf(name) : undefined;
  if (!spec || !module || !mounted.includes(module.name)) return {};
  return { input_schema: inputJsonSchema(spec), output_schema: outputJsonSchema(spec) };
}
