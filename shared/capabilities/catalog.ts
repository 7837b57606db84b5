/**
 * The catalog of mounted modules as clients see it (the page's `catalog.get`, MCP's
 * `nodetool://capabilities`): each module with its exports, wire name, method, description, category,
 * positional names and the input and output JSON Schemas derived from the spec. One builder, so both agree.
 */
import { findModule, inputJsonSchema, moduleSpecifier, outputJsonSchema } from "./table.ts";
import type { Category } from "./types.ts";

export interface ExportDescription {
  name: string;
  method: string;
  description: string;
  category: Category;
  positional: readonly string[];
  input_schema: unknown;
  output_schema: unknown;
}

export interface ModuleDescription {
  name: string;
  specifier: string;
  description: string;
  exports: ExportDescription[];
}

export function describeModules(names: readonly string[]): ModuleDescription[] {
  return names.flatMap((name) => {
    const module = findModule(name);
    if (!module) return [];
    return [
      {
        name: module.name,
        specifier: moduleSpecifier(module.name),
        description: module.description,
        exports: module.specs.map((spec) => ({
          name: spec.name,
          method: spec.method,
          description: spec.description,
          category: spec.category,
          positional: spec.positional ?? [],
          input_schema: inputJsonSchema(spec),
          output_schema: outputJsonSchema(spec),
        })),
      },
    ];
  });
}
