/**
 * The capability dispatcher (DESIGN.md section 7): (module specifier, export, args[]) -> run.invoke.
 * The module must be mounted for the session, the export listed, the args an array that folds into
 * one object. Errors name the module and export.
 */
import { closestNames, findModule, namespaceOf } from "../capabilities/table.ts";
import type { InvokeResult } from "../capabilities/types.ts";
import type { CapabilityRun, InvokeOptions } from "../gate/invoke.ts";
import { failure } from "../protocol/errors.ts";
import { foldArgs } from "./coerce.ts";

export interface DispatchCall {
  module: string;
  export: string;
  args: unknown;
}

export function dispatch(
  run: CapabilityRun<unknown>,
  mounted: readonly string[],
  call: DispatchCall,
  options: InvokeOptions = {},
): Promise<InvokeResult> {
  const ns = namespaceOf(call.module);
  const module = ns === undefined ? undefined : findModule(ns);
  if (!module || !mounted.includes(module.name)) {
    const available = mounted.map((m) => `@nodetool-ai/sandbox-nodetool/${m}`);
    const near = closestNames(call.module, available, 1);
    const hint = near.length ? ` Did you mean "${near[0]}"?` : "";
    return refuse(
      "unknown_module",
      `Module "${call.module}" is not mounted for this session.${hint} Available: ${available.join(", ")}.`,
    );
  }
  // An export is a wire name or the namespace's short method name.
  const spec = module.specs.find((s) => s.name === call.export) ?? module.specs.find((s) => s.method === call.export);
  if (!spec) {
    const names = module.specs.flatMap((s) => [s.name, s.method]);
    const near = closestNames(call.export, names, 2);
    const hint = near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "";
    return refuse("unknown_export", `Module "${call.module}" has no export "${call.export}".${hint}`);
  }
  if (!Array.isArray(call.args)) {
    return refuse("invalid_call", `${call.module} ${call.export}: args must be an array of call arguments.`);
  }
  const folded = foldArgs(spec, call.args);
  if (!folded.ok) return refuse("invalid_call", `${call.module} ${call.export}: ${folded.message}`);
  return run.invoke(spec.name, folded.args, options);
}

function refuse(code: "unknown_module" | "unknown_export" | "invalid_call", message: string): Promise<InvokeResult> {
  return Promise.resolve({ ok: false, error: failure(code, message) });
}
