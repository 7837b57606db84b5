/**
 * The `.d.ts` text of each importable module, generated from the spec table (capability modules) and
 * the packs' infos, and the bundle of everything (globals first). One `declare module` block per
 * specifier, so one bundle type-checks any action's imports. Served at `/types`, returned by
 * `describe()`, fed to the editor's type check; every piece is derived, nothing is written twice.
 */
import { findModule, moduleSpecifier } from "../capabilities/table.ts";
import type { PackInfo } from "../protocol/worker.ts";
import { packSpecifier } from "../sandbox/facade.ts";
import { capabilityDeclaration, functionDeclarations, memberDeclaration } from "./capability.ts";
import { globalsDeclaration } from "./globals.ts";
import { jsdoc, propertyKey } from "./print.ts";

const moduleCache = new Map<string, string>();

/** The `declare module` block of one capability module, or undefined for a name that is none. */
export function moduleDeclaration(name: string): string | undefined {
  const cached = moduleCache.get(name);
  if (cached !== undefined) return cached;
  const module = findModule(name);
  if (!module) return undefined;
  const declarations = module.specs.map((spec) => capabilityDeclaration(module.name, spec));
  const named = new Map(declarations.flatMap((d) => [...d.named]));
  const parts = [...named.values(), ...declarations.map((d) => `${d.types}\n\n${functionDeclarations(d)}`)];
  const members = declarations.map((d) => memberDeclaration(d)).join("\n");
  const text = `${jsdoc([module.description], "")}declare module ${JSON.stringify(moduleSpecifier(module.name))} {
${parts.join("\n\n")}

${jsdoc([`${module.description} Its methods are the exports above by their short names.`], "  ")}  export const ${module.name}: {
${members}
  };
  export default ${module.name};
}`;
  moduleCache.set(name, text);
  return text;
}

/**
 * A library pack's block. Packs declare no schemas: their exports take the arguments their signature
 * shows and answer plain data, declared as `any` so an action can use the result without casts.
 */
export function packDeclaration(pack: PackInfo): string {
  const functions = pack.exports.map(
    (entry) =>
      `${jsdoc([entry.description, entry.signature ?? ""], "  ")}  export function ${entry.name}(...args: any[]): Promise<any>;`,
  );
  const members = pack.exports.map((entry) => `    ${propertyKey(entry.name)}: typeof ${entry.name};`).join("\n");
  const shadowed = pack.exports.some((entry) => entry.name === pack.name);
  const local = shadowed ? "__namespace" : pack.name;
  return `${jsdoc([pack.description], "")}declare module ${JSON.stringify(packSpecifier(pack.name))} {
${functions.join("\n")}
  ${shadowed ? "" : "export "}const ${local}: {
${members}
  };
  export default ${local};
}`;
}

/** Everything an action can see: the globals, then each mounted module and allowed pack. */
export function declarationBundle(mounted: readonly string[], packs: readonly PackInfo[]): string {
  const modules = mounted.flatMap((name) => moduleDeclaration(name) ?? []);
  return [
    "// Declarations for nodetool sandbox actions, generated from the capability specs.",
    globalsDeclaration(mounted),
    ...modules,
    ...packs.map(packDeclaration),
  ].join("\n\n");
}
