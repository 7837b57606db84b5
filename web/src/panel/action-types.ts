/**
 * What the `Action` editor knows of the capabilities: the declarations as data (`/types/index.json`,
 * shared/declarations/model.ts), fetched once when the editor is first focused and parsed before use,
 * and how an action's text names them: its imports' bindings, and the capability a call or a member
 * expression refers to. Pure functions over text, so completion and hover share them.
 */

import { type TypedExport, type TypedModule, TypesIndex } from "../../../shared/declarations/model.ts";
import { pageFetch } from "../page-fetch.ts";

export type { TypedExport, TypedModule, TypesIndex };

let loading: Promise<TypesIndex | undefined> | undefined;

/** The declarations, or undefined when the server could not give them (completion then stays quiet). */
export function loadTypesIndex(): Promise<TypesIndex | undefined> {
  loading ??= pageFetch("/types/index.json")
    .then(async (res) => (res.ok ? TypesIndex.parse(await res.json()) : undefined))
    .catch(() => undefined)
    .then((index) => {
      // A failure is not remembered: the next focus tries again.
      if (!index) loading = undefined;
      return index;
    });
  return loading;
}

/** What a name an action imported stands for. */
export type Binding =
  | { kind: "namespace"; module: TypedModule }
  | { kind: "export"; module: TypedModule; entry: TypedExport };

const IMPORT = /import\s+([\w$\s{},*]+?)\s+from\s*(["'])([^"'\n]+)\2/g;

/** The bindings of every import in the text: `{ workflows }`, a default, `* as x`, `{ list_workflows as l }`. */
export function bindingsOf(text: string, index: TypesIndex): Map<string, Binding> {
  const bindings = new Map<string, Binding>();
  for (const match of text.matchAll(IMPORT)) {
    const module = index.modules.find((m) => m.specifier === match[3]);
    if (!module) continue;
    const clause = match[1] ?? "";
    const braces = /\{([^}]*)\}/.exec(clause);
    const outside = clause.replace(/\{[^}]*\}/, "");
    const star = /\*\s*as\s+([\w$]+)/.exec(outside);
    if (star?.[1]) bindings.set(star[1], { kind: "namespace", module });
    const fallback = /^\s*([\w$]+)/.exec(outside.replace(/\*\s*as\s+[\w$]+/, ""));
    if (fallback?.[1]) bindings.set(fallback[1], { kind: "namespace", module });
    for (const part of (braces?.[1] ?? "").split(",")) {
      const [imported, local] = part.split(/\s+as\s+/).map((s) => s.trim());
      if (!imported) continue;
      const name = local || imported;
      if (imported === module.name || imported === "default") {
        bindings.set(name, { kind: "namespace", module });
        continue;
      }
      const entry = module.exports.find((e) => e.name === imported);
      if (entry) bindings.set(name, { kind: "export", module, entry });
    }
  }
  return bindings;
}

/** The module a member expression's object names: a namespace binding, or `nodetool.<module>`. */
export function moduleOfObject(
  object: string,
  bindings: ReadonlyMap<string, Binding>,
  index: TypesIndex,
): TypedModule | undefined {
  const shim = /^nodetool\.([\w$]+)$/.exec(object);
  if (shim) return index.modules.find((m) => m.name === shim[1] && m.specifier.includes("/sandbox-nodetool/"));
  const binding = bindings.get(object);
  return binding?.kind === "namespace" ? binding.module : undefined;
}

/** The capability a callee names: `workflows.list`, `nodetool.workflows.list`, `list_workflows`. */
export function exportOfCallee(
  callee: string,
  bindings: ReadonlyMap<string, Binding>,
  index: TypesIndex,
): TypedExport | undefined {
  const compact = callee.replace(/\s+/g, "");
  const dot = compact.lastIndexOf(".");
  if (dot < 0) {
    const binding = bindings.get(compact);
    return binding?.kind === "export" ? binding.entry : undefined;
  }
  const module = moduleOfObject(compact.slice(0, dot), bindings, index);
  const member = compact.slice(dot + 1);
  return module?.exports.find((e) => e.method === member || e.name === member);
}
