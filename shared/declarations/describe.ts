/**
 * What the guest's `describe(nameOrModule)` answers: the declaration text of one module, one capability
 * (`workflows.list` or `list_workflows`), the globals, or the contract (limits of this action, error
 * codes, globals), within what the session mounted. The sandbox host calls this when the guest asks,
 * so nothing here is computed on an action start. A name it does not know answers a failure with the
 * closest names.
 */
import { closestNames, findModule, moduleSpecifier } from "../capabilities/table.ts";
import { type FailurePayload, failure } from "../protocol/errors.ts";
import type { PackInfo } from "../protocol/worker.ts";
import { WASM_MAX_BYTES } from "../sandbox/limits.ts";
import { capabilityDeclaration, functionDeclarations } from "./capability.ts";
import { globalsDeclaration } from "./globals.ts";
import { moduleDeclaration, packDeclaration } from "./modules.ts";

/** The limits `describe("contract")` reports: those of the action that asks. */
export interface ContractLimits {
  timeoutMs: number;
  stackBytes: number;
  maxCalls: number;
  maxResultChars: number;
  maxLogChars: number;
}

export interface DescribeScope {
  mounted: readonly string[];
  packs: readonly PackInfo[];
  limits: ContractLimits;
}

export type DescribeAnswer = { ok: true; text: string } | { ok: false; error: FailurePayload };

const KiB = 1024;
const size = (n: number) => (n >= KiB * KiB ? `${Math.round(n / KiB / KiB)} MiB` : `${Math.round(n / KiB)} KiB`);

export function contractText(scope: DescribeScope): string {
  const { limits } = scope;
  return `// The action contract: the limits of this action, the globals, and the error codes (on CapabilityError).
//
// Limits: ${Math.round(limits.timeoutMs / 1000)} s of run time (time waiting for an approval does not count), ${size(WASM_MAX_BYTES)} of memory (the sandbox's own included), ${size(limits.stackBytes)} of stack, at most ${limits.maxCalls} capability calls, a result of at most ${size(limits.maxResultChars)} of JSON, ${size(limits.maxLogChars)} of logs. No network, timers or file system: only capabilities reach outside.
// Result: the value of \`export default\` (or a top-level \`return\`, not both): JSON, Uint8Array or assets.
// Calls: one object of named arguments, or the leading positional ones then an object. camelCase keys
// are read as snake_case; a bare \`id\` fills a capability's one required *_id argument.
// A failed call throws CapabilityError; uncaught, the action fails with its code (the observation's error.code).

${globalsDeclaration(scope.mounted)}`;
}

function indexText(scope: DescribeScope): string {
  const modules = scope.mounted.map((name) => `  ${name}: ${findModule(name)?.description ?? ""}`).join("\n");
  const packs = scope.packs.map((pack) => `  ${pack.name}: ${pack.description}`).join("\n") || "  (none)";
  return `describe(name) answers TypeScript declarations of:
  a module: describe("workflows")
  one capability: describe("workflows.list") or describe("list_workflows")
  the globals (batch, openWorkflow, CapabilityError, ...): describe("globals")
  the contract (limits, error codes, globals): describe("contract")
Modules mounted here:
${modules}
Library packs:
${packs}`;
}

/** One capability's declaration: the types it uses, its own, and its call forms, in its module's block. */
export function capabilityText(namespace: string, specName: string): string | undefined {
  const module = findModule(namespace);
  const spec = module?.specs.find((s) => s.name === specName);
  if (!module || !spec) return undefined;
  const declaration = capabilityDeclaration(module.name, spec);
  const named = [...declaration.named.values()];
  return `// import { ${module.name} } from "${moduleSpecifier(module.name)}";  ${module.name}.${spec.method}(...) is ${spec.name}(...)
declare module ${JSON.stringify(moduleSpecifier(module.name))} {
${[...named, declaration.types, functionDeclarations(declaration)].join("\n\n")}
}`;
}

export function describeName(name: string | undefined, scope: DescribeScope): DescribeAnswer {
  const wanted = (name ?? "").trim();
  if (wanted === "") return { ok: true, text: indexText(scope) };
  if (wanted === "contract") return { ok: true, text: contractText(scope) };
  if (wanted === "globals") return { ok: true, text: globalsDeclaration(scope.mounted) };
  const bare = wanted.replace(/^@nodetool-ai\/sandbox-(nodetool|packs)\//, "");
  if (scope.mounted.includes(bare)) return { ok: true, text: moduleDeclaration(bare) ?? "" };
  const pack = scope.packs.find((p) => p.name === bare);
  if (pack) return { ok: true, text: packDeclaration(pack) };

  const names = new Map<string, [string, string]>();
  for (const namespace of scope.mounted) {
    for (const spec of findModule(namespace)?.specs ?? []) {
      names.set(`${namespace}.${spec.method}`, [namespace, spec.name]);
      names.set(spec.name, [namespace, spec.name]);
    }
  }
  const found = names.get(bare);
  const text = found ? capabilityText(found[0], found[1]) : undefined;
  if (text !== undefined) return { ok: true, text };
  const candidates = ["contract", "globals", ...scope.mounted, ...scope.packs.map((p) => p.name), ...names.keys()];
  const near = closestNames(bare, candidates);
  const hint = near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "";
  return {
    ok: false,
    error: failure(
      "unknown_capability",
      `describe: nothing is named "${wanted}" here.${hint} describe() lists what there is to describe.`,
      { suggestions: near },
    ),
  };
}
