/**
 * The eager spec table: every namespace's specs, imported eagerly, looked up by wire name. The
 * implementations are not here; the server loads them lazily per namespace.
 */
import { z } from "zod";
import { agentsModule } from "./specs/agents.specs.ts";
import { assetsModule } from "./specs/assets.specs.ts";
import { collectionsModule } from "./specs/collections.specs.ts";
import { jobsModule } from "./specs/jobs.specs.ts";
import { memoryModule } from "./specs/memory.specs.ts";
import { modelsModule } from "./specs/models.specs.ts";
import { nodesModule } from "./specs/nodes.specs.ts";
import { sharedModule } from "./specs/shared.specs.ts";
import { uiModule } from "./specs/ui.specs.ts";
import { webModule } from "./specs/web.specs.ts";
import { workflowsModule } from "./specs/workflows.specs.ts";
import type { AnySpec, ModuleSpecs } from "./types.ts";

export const CAPABILITY_PREFIX = "@nodetool-ai/sandbox-nodetool/";
export const PACK_PREFIX = "@nodetool-ai/sandbox-packs/";

export const MODULES: readonly ModuleSpecs[] = [
  workflowsModule,
  memoryModule,
  sharedModule,
  uiModule,
  jobsModule,
  nodesModule,
  assetsModule,
  collectionsModule,
  webModule,
  modelsModule,
  agentsModule,
];

export const MODULE_NAMES: readonly string[] = MODULES.map((m) => m.name);

const byName = new Map<string, { spec: AnySpec; module: ModuleSpecs }>();
for (const module of MODULES) {
  for (const spec of module.specs) {
    if (byName.has(spec.name)) throw new Error(`capability "${spec.name}" is declared twice`);
    byName.set(spec.name, { spec, module });
  }
}

export function findSpec(name: string): AnySpec | undefined {
  return byName.get(name)?.spec;
}

export function moduleOf(name: string): ModuleSpecs | undefined {
  return byName.get(name)?.module;
}

export function findModule(name: string): ModuleSpecs | undefined {
  return MODULES.find((m) => m.name === name);
}

export function allSpecs(): AnySpec[] {
  return [...byName.values()].map((entry) => entry.spec);
}

export function moduleSpecifier(name: string): string {
  return `${CAPABILITY_PREFIX}${name}`;
}

/** `@nodetool-ai/sandbox-nodetool/workflows` -> `workflows`; anything else -> undefined. */
export function namespaceOf(specifier: string): string | undefined {
  return specifier.startsWith(CAPABILITY_PREFIX) ? specifier.slice(CAPABILITY_PREFIX.length) : undefined;
}

const inputCache = new WeakMap<AnySpec, unknown>();
const outputCache = new WeakMap<AnySpec, unknown>();

/** JSON Schema of a spec's input, derived from its zod schema (never written by hand). */
export function inputJsonSchema(spec: AnySpec): unknown {
  let schema = inputCache.get(spec);
  if (schema === undefined) {
    schema = z.toJSONSchema(spec.input, { io: "input", unrepresentable: "any" });
    inputCache.set(spec, schema);
  }
  return schema;
}

/**
 * JSON Schema of a spec's result, derived from its `output`. It describes the result as JSON carries
 * it: bytes and assets in their wire form, with their TypeScript names under `x-typescript`.
 */
export function outputJsonSchema(spec: AnySpec): unknown {
  let schema = outputCache.get(spec);
  if (schema === undefined) {
    schema = z.toJSONSchema(spec.output, { io: "output", unrepresentable: "any" });
    outputCache.set(spec, schema);
  }
  return schema;
}

/** The argument names a spec takes (its input object's keys); undefined for an input of another kind. */
export function argumentNames(spec: AnySpec): readonly string[] | undefined {
  return spec.input instanceof z.ZodObject ? Object.keys(spec.input.shape) : undefined;
}

/** Closest names by edit distance, for "did you mean" hints. */
export function closestNames(name: string, candidates: readonly string[], max = 3): string[] {
  return candidates
    .map((candidate) => ({ candidate, d: editDistance(name.toLowerCase(), candidate.toLowerCase()) }))
    .filter((x) => x.d <= Math.max(3, Math.floor(x.candidate.length / 2)))
    .sort((a, b) => a.d - b.d)
    .slice(0, max)
    .map((x) => x.candidate);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
    }
    prev = cur;
  }
  return prev[b.length] as number;
}
