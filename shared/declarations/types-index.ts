/** Builds the declarations as data (model.ts) from the same generator as the `.d.ts` text. */
import { findModule, moduleSpecifier } from "../capabilities/table.ts";
import type { PackInfo } from "../protocol/worker.ts";
import { packSpecifier } from "../sandbox/facade.ts";
import { capabilityDeclaration } from "./capability.ts";
import { capabilityText } from "./describe.ts";
import type { TypedModule, TypesIndex } from "./model.ts";

export function typesIndex(mounted: readonly string[], packs: readonly PackInfo[]): TypesIndex {
  const modules = mounted.flatMap((name): TypedModule[] => {
    const module = findModule(name);
    if (!module) return [];
    return [
      {
        specifier: moduleSpecifier(module.name),
        name: module.name,
        description: module.description,
        exports: module.specs.map((spec) => {
          const declaration = capabilityDeclaration(module.name, spec);
          return {
            name: spec.name,
            method: spec.method,
            description: spec.description,
            category: spec.category,
            signatures: declaration.forms.map((form) => `${module.name}.${spec.method}${form}`),
            args: [...declaration.args],
            declaration: capabilityText(module.name, spec.name) ?? "",
          };
        }),
      },
    ];
  });
  const packModules = packs.map(
    (pack): TypedModule => ({
      specifier: packSpecifier(pack.name),
      name: pack.name,
      description: pack.description,
      exports: pack.exports.map((entry) => ({
        name: entry.name,
        method: entry.name,
        description: entry.description,
        signatures: [entry.signature ?? `${pack.name}.${entry.name}(...)`],
        args: [],
        declaration: `${entry.signature ?? entry.name}\n${entry.description}`,
      })),
    }),
  );
  return { modules: [...modules, ...packModules] };
}
