/**
 * The module loader for one action: a synchronous map from specifier to source. Capability and pack
 * specifiers resolve to generated facades (shared/sandbox/facade.ts); `nodetool:*` names are the
 * sandbox's own guest modules (worker/guest), importable only by facades and by other `nodetool:*`
 * modules, never by the action. Dynamic `import()` goes through the same rules when it runs; a refusal
 * is remembered so the observation can carry `import_refused`.
 */
import type { FailurePayload } from "../../shared/protocol/errors.ts";
import { facadeSource, INTERNAL_PREFIX, nodetoolShimSource, packFacadeSource } from "../../shared/sandbox/facade.ts";
import { type ImportScope, resolveSpecifier } from "../../shared/sandbox/imports.ts";
import { GUEST_SOURCES, MERGED_INTO_SETUP } from "./guest-sources.ts";

export const ACTION_FILENAME = "action.js";
export const SETUP_SPECIFIER = "nodetool:setup";

type LoadResult = string | { error: Error };

export interface ModuleResolver {
  normalize(base: string, requested: string): LoadResult;
  load(name: string): LoadResult;
  /** Refusals issued while the action ran, by message (to recover their code). */
  readonly refusals: Map<string, FailurePayload>;
}

function isInternal(name: string): boolean {
  return name.startsWith(INTERNAL_PREFIX);
}

export function createModuleResolver(scope: ImportScope): ModuleResolver {
  const refusals = new Map<string, FailurePayload>();
  const facades = new Set<string>();
  const refuse = (payload: FailurePayload): { error: Error } => {
    refusals.set(payload.message, payload);
    return { error: new Error(payload.message) };
  };
  return {
    refusals,
    normalize(base, requested) {
      if (isInternal(requested)) {
        // Only the sandbox's own modules and generated facades may reach the bridge and helpers. The
        // bridge and errors are part of the setup module, already loaded (guest-sources.ts).
        if (isInternal(base) || facades.has(base)) {
          return MERGED_INTO_SETUP.has(requested.slice(INTERNAL_PREFIX.length)) ? SETUP_SPECIFIER : requested;
        }
        return refuse({
          code: "import_refused",
          message: `Module "${requested}" is internal to the sandbox and cannot be imported by an action.`,
        });
      }
      const resolved = resolveSpecifier(requested, scope);
      if (resolved.kind === "refused") return refuse(resolved.error);
      facades.add(requested);
      return requested;
    },
    load(name) {
      if (isInternal(name)) {
        const key = name.slice(INTERNAL_PREFIX.length);
        if (key === "shim") return nodetoolShimSource(scope.mounted);
        const source = GUEST_SOURCES[key];
        if (source !== undefined) return source;
        return { error: new Error(`Module "${name}" does not exist.`) };
      }
      const resolved = resolveSpecifier(name, scope);
      if (resolved.kind === "capability") return facadeSource(resolved.namespace);
      if (resolved.kind === "pack") return packFacadeSource(resolved.pack);
      return refuse(resolved.error);
    },
  };
}
