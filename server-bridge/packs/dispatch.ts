/**
 * The library dispatcher (DESIGN.md section 7): the capability dispatcher's ladder for pure packs.
 * The pack must be allowed for the session, the export listed, the args an array that folds into one
 * object, the object valid for the export's schema; then the pure function runs. No run context, no
 * gate: packs touch nothing but their arguments. Errors name the module and export.
 */
import { z } from "zod";
import { MODULE_NAMES, PACK_PREFIX } from "../../shared/capabilities/table.ts";
import { type AnySpec, defineSpec, type InvokeResult } from "../../shared/capabilities/types.ts";
import { safeMessage } from "../../shared/gate/invoke.ts";
import { failure, issueLines } from "../../shared/protocol/errors.ts";
import type { PackInfo } from "../../shared/protocol/worker.ts";
import { foldArgs } from "../../shared/sandbox/coerce.ts";
import { packSpecifier } from "../../shared/sandbox/facade.ts";
import type { PackExport, PackManifest } from "./types.ts";

export interface LibraryCall {
  module: string;
  export: string;
  args: unknown;
}

export interface LibraryDispatcher {
  /** Pack ids, in registration order. */
  readonly names: readonly string[];
  /** What the worker needs to know of the allowed packs (names, never code). */
  packInfo(allowed?: readonly string[]): PackInfo[];
  dispatch(call: LibraryCall, allowed?: readonly string[]): Promise<InvokeResult>;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PACK_ID = /^[a-z][a-z0-9_]*$/;

interface Entry {
  manifest: PackManifest;
  exports: Map<string, { spec: AnySpec; impl: PackExport }>;
}

/** Builds the library from manifests; throws on a manifest that claims an id it may not have. */
export function createLibrary(manifests: readonly PackManifest[]): LibraryDispatcher {
  const packs = new Map<string, Entry>();
  for (const manifest of manifests) {
    if (!PACK_ID.test(manifest.name)) throw new Error(`pack id "${manifest.name}" must match ${PACK_ID}`);
    if (MODULE_NAMES.includes(manifest.name)) {
      throw new Error(`pack "${manifest.name}" claims the id of a capability module; a pack can never declare one`);
    }
    if (packs.has(manifest.name)) throw new Error(`pack "${manifest.name}" claims the id of another pack`);
    const exports = new Map<string, { spec: AnySpec; impl: PackExport }>();
    for (const impl of manifest.exports) {
      if (!IDENT.test(impl.name) || impl.name === "default") {
        throw new Error(`pack "${manifest.name}" export "${impl.name}" is not a usable export name`);
      }
      if (exports.has(impl.name)) throw new Error(`pack "${manifest.name}" declares "${impl.name}" twice`);
      // A spec-shaped view so the same argument folding as capabilities applies.
      const spec = defineSpec({
        name: `${manifest.name}.${impl.name}`,
        method: impl.name,
        description: impl.description,
        input: impl.input,
        // A pack is not a capability: its results are plain data of its own and are not checked.
        output: z.unknown(),
        category: "read",
        ...(impl.positional ? { positional: impl.positional } : {}),
      });
      exports.set(impl.name, { spec, impl });
    }
    packs.set(manifest.name, { manifest, exports });
  }
  const names = [...packs.keys()];
  const isAllowed = (name: string, allowed?: readonly string[]) =>
    packs.has(name) && (!allowed || allowed.includes(name));

  return {
    names,
    packInfo(allowed) {
      return names
        .filter((name) => isAllowed(name, allowed))
        .map((name) => {
          const { manifest } = packs.get(name) as Entry;
          return {
            name,
            description: manifest.description,
            exports: manifest.exports.map((e) => ({
              name: e.name,
              description: e.description,
              signature: e.signature,
            })),
          };
        });
    },
    async dispatch(call, allowed) {
      const id = call.module.startsWith(PACK_PREFIX) ? call.module.slice(PACK_PREFIX.length) : "";
      if (!isAllowed(id, allowed)) {
        const available = names.filter((n) => isAllowed(n, allowed)).map(packSpecifier);
        return refuse(
          "unknown_module",
          `Pack "${call.module}" is not available. Available: ${available.join(", ") || "none"}.`,
        );
      }
      const entry = packs.get(id) as Entry;
      const found = entry.exports.get(call.export);
      if (!found) {
        return refuse(
          "unknown_export",
          `Pack "${call.module}" has no export "${call.export}". It exports: ${[...entry.exports.keys()].join(", ")}.`,
        );
      }
      if (!Array.isArray(call.args))
        return refuse("invalid_call", `${call.module} ${call.export}: args must be an array.`);
      const folded = foldArgs(found.spec, wrapLoneObject(found.impl, call.args));
      if (!folded.ok) return refuse("invalid_call", `${call.module} ${call.export}: ${folded.message}`);
      const parsed = found.spec.input.safeParse(folded.args);
      if (!parsed.success) {
        const issues = issueLines(parsed.error, "(args)");
        return {
          ok: false,
          error: failure("invalid_tool_arguments", `Invalid arguments for ${found.spec.name}: ${issues.join("; ")}`, {
            capability: found.spec.name,
            issues,
          }),
        };
      }
      try {
        const value = await found.impl.run(parsed.data as never);
        return { ok: true, value: value === undefined ? null : value };
      } catch (err) {
        return {
          ok: false,
          error: failure("capability_failed", `${found.spec.name} failed: ${safeMessage(err)}`, {
            capability: found.spec.name,
          }),
        };
      }
    },
  };
}

function wrapLoneObject(impl: PackExport, args: readonly unknown[]): readonly unknown[] {
  const key = impl.loneObject;
  const only = args[0];
  if (!key || args.length !== 1 || only === null || typeof only !== "object" || Array.isArray(only)) return args;
  if (only instanceof Uint8Array || Object.hasOwn(only, key)) return args;
  return [{ [key]: only }];
}

function refuse(code: "unknown_module" | "unknown_export" | "invalid_call", message: string): InvokeResult {
  return { ok: false, error: failure(code, message) };
}
