/**
 * Static import check (DESIGN.md section 6), run before an action is evaluated. With a real parser
 * (acorn), every static import, re-export and literal dynamic `import()` must name a mounted capability
 * module or an allowed library pack, and every named import must be one the module exports. A refusal
 * is `import_refused`, naming the module, listing what is available and hinting the nearest name.
 * Dynamic `import()` of a computed specifier is checked again by the loader when it runs.
 *
 * Also here, because it needs the same parse: the non-module form. An action whose top level uses
 * `return` is wrapped as `export default await (async () => { ... })()`, imports kept at top level,
 * line numbers preserved.
 */
import { type Node, type Program, parse } from "acorn";
import { closestNames, findModule, moduleSpecifier, namespaceOf, PACK_PREFIX } from "../capabilities/table.ts";
import { type FailurePayload, failure } from "../protocol/errors.ts";
import type { PackInfo } from "../protocol/worker.ts";
import { capabilityExports, packExports, packSpecifier } from "./facade.ts";

export interface ImportScope {
  /** Mounted capability namespaces (`workflows`). */
  readonly mounted: readonly string[];
  /** Library packs the session allows. */
  readonly packs: readonly PackInfo[];
}

export type Resolved =
  | { kind: "capability"; namespace: string; exports: string[] }
  | { kind: "pack"; pack: PackInfo; exports: string[] }
  | { kind: "refused"; error: FailurePayload };

export function availableSpecifiers(scope: ImportScope): string[] {
  return [...scope.mounted.map(moduleSpecifier), ...scope.packs.map((p) => packSpecifier(p.name))];
}

/** Resolves one specifier against the session's scope; refusals carry the message the model reads. */
export function resolveSpecifier(specifier: string, scope: ImportScope): Resolved {
  const ns = namespaceOf(specifier);
  if (ns !== undefined && scope.mounted.includes(ns)) {
    const module = findModule(ns);
    if (module) return { kind: "capability", namespace: ns, exports: capabilityExports(module) };
  }
  if (specifier.startsWith(PACK_PREFIX)) {
    const pack = scope.packs.find((p) => packSpecifier(p.name) === specifier);
    if (pack) return { kind: "pack", pack, exports: packExports(pack) };
  }
  return { kind: "refused", error: refusal(specifier, scope) };
}

/** Node's own modules and the packages models reach for to make requests: none exist in an action. */
const HOST_MODULES =
  /^(node:.*|fs|fs\/promises|path|os|http|https|net|child_process|crypto|util|stream|buffer|events|zlib|url|axios|node-fetch|undici|cross-fetch)$/;

function refusal(specifier: string, scope: ImportScope): FailurePayload {
  const available = availableSpecifiers(scope);
  const hostModule = HOST_MODULES.test(specifier);
  const lastSegment = specifier.split("/").pop() ?? specifier;
  // A near name by the whole specifier, else by its last segment when that is long enough to guess from.
  const near = hostModule
    ? undefined
    : (closestNames(specifier, available, 1)[0] ??
      (lastSegment.length >= 4
        ? available.find((a) => closestNames(lastSegment, [a.split("/").pop() ?? a], 1).length > 0)
        : undefined));
  const why =
    namespaceOf(specifier) !== undefined && findModule(namespaceOf(specifier) ?? "")
      ? "is not mounted for this session"
      : specifier.startsWith(PACK_PREFIX)
        ? "is not a library pack this session allows"
        : hostModule
          ? "cannot be imported in the sandbox: an action has no Node or browser APIs, only capabilities (HTTP is http_request in the web module; files and images are assets)"
          : "cannot be imported in the sandbox (only capability modules and allowed library packs can)";
  const hint = near ? ` Did you mean "${near}"?` : "";
  const list = available.length ? available.join(", ") : "none";
  return failure("import_refused", `Module "${specifier}" ${why}.${hint} Available: ${list}.`, {
    suggestions: near ? [near] : [],
  });
}

/**
 * A namespace object's member that does not exist (`workflows.lst`): `unknown_export`, naming the
 * module, the name and the closest methods. The facades' namespace objects throw it (worker/guest/bridge.js).
 */
export function unknownMethod(specifier: string, name: string, scope: ImportScope): FailurePayload {
  const resolved = resolveSpecifier(specifier, scope);
  const methods =
    resolved.kind === "capability"
      ? (findModule(resolved.namespace)?.specs.map((s) => s.method) ?? [])
      : resolved.kind === "pack"
        ? resolved.pack.exports.map((e) => e.name)
        : [];
  const near = closestNames(name, methods, 3);
  const hint = near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "";
  const short = namespaceOf(specifier) ?? specifier.split("/").pop() ?? specifier;
  return failure(
    "unknown_export",
    `${short}.${name} does not exist: module "${specifier}" has no method "${name}".${hint} Its methods: ${methods.join(", ")}.`,
    { suggestions: near },
  );
}

function missingExport(specifier: string, name: string, exports: readonly string[]): FailurePayload {
  const near = closestNames(name, exports, 2);
  const hint = near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "";
  return failure(
    "import_refused",
    `Module "${specifier}" has no export "${name}".${hint} It exports: ${exports.join(", ")}.`,
    {
      suggestions: near,
    },
  );
}

export type Analysis =
  | { ok: true; source: string; specifiers: string[] }
  | { ok: false; kind: "syntax"; message: string; line?: number; column?: number }
  | { ok: false; kind: "import"; error: FailurePayload; line?: number; column?: number };

interface AcornSyntaxError extends SyntaxError {
  loc?: { line: number; column: number };
}

function parseModule(source: string, allowReturn: boolean): Program {
  return parse(source, {
    ecmaVersion: "latest",
    sourceType: "module",
    locations: true,
    allowReturnOutsideFunction: allowReturn,
    allowAwaitOutsideFunction: true,
  });
}

/** Parses, checks every import against the scope, and returns the source to evaluate. */
export function analyseAction(source: string, scope: ImportScope): Analysis {
  let program: Program;
  let wrapReturn = false;
  try {
    program = parseModule(source, false);
  } catch (err) {
    const e = err as AcornSyntaxError;
    if (!/'return' outside of function/.test(String(e.message))) return syntax(e);
    try {
      program = parseModule(source, true);
      wrapReturn = true;
    } catch (again) {
      return syntax(again as AcornSyntaxError);
    }
  }
  const specifiers: string[] = [];
  const imports: Node[] = [];
  let refused: Analysis | undefined;
  walk(program, (node) => {
    if (refused) return;
    const checked = checkNode(node, scope);
    if (!checked) return;
    if (checked.kind === "statement") imports.push(node);
    if (checked.specifier !== undefined) specifiers.push(checked.specifier);
    if (checked.error) refused = { ok: false, kind: "import", error: checked.error, ...position(node) };
  });
  if (refused) return refused;
  if (!wrapReturn) return { ok: true, source, specifiers };
  const hasExport = program.body.some((n) => n.type.startsWith("Export"));
  if (hasExport) {
    return {
      ok: false,
      kind: "syntax",
      message: "Use either `export default` or a top-level `return` for the result, not both.",
    };
  }
  return { ok: true, source: wrapTopLevelReturn(source, imports), specifiers };
}

function syntax(err: AcornSyntaxError): Analysis {
  const message = String(err.message ?? "syntax error").replace(/ \(\d+:\d+\)$/, "");
  const at = err.loc ? { line: err.loc.line, column: err.loc.column + 1 } : {};
  return { ok: false, kind: "syntax", message: `SyntaxError: ${message}`, ...at };
}

function position(node: Node): { line?: number; column?: number } {
  return node.loc ? { line: node.loc.start.line, column: node.loc.start.column + 1 } : {};
}

type Checked = { kind: "statement" | "expression"; specifier?: string; error?: FailurePayload };

function checkNode(node: Node, scope: ImportScope): Checked | undefined {
  const n = node as Node & {
    source?: { type: string; value?: unknown } | null;
    specifiers?: { type: string; imported?: { type: string; name?: string; value?: unknown }; local?: unknown }[];
  };
  const isStatement =
    node.type === "ImportDeclaration" ||
    ((node.type === "ExportNamedDeclaration" || node.type === "ExportAllDeclaration") && n.source);
  const isExpression = node.type === "ImportExpression";
  if (!isStatement && !isExpression) return undefined;
  const kind = isStatement ? "statement" : "expression";
  const source = n.source;
  if (source?.type !== "Literal" || typeof source.value !== "string") {
    // A computed `import(x)`: the loader checks it when it runs.
    return { kind };
  }
  const specifier = source.value;
  const resolved = resolveSpecifier(specifier, scope);
  if (resolved.kind === "refused") return { kind, specifier, error: resolved.error };
  if (node.type === "ImportDeclaration" || node.type === "ExportNamedDeclaration") {
    for (const spec of n.specifiers ?? []) {
      const nameNode =
        node.type === "ImportDeclaration" ? spec.imported : (spec as { local?: typeof spec.imported }).local;
      if (spec.type !== "ImportSpecifier" && spec.type !== "ExportSpecifier") continue;
      const name = nameNode?.type === "Identifier" ? String(nameNode.name) : String(nameNode?.value ?? "");
      if (!resolved.exports.includes(name))
        return { kind, specifier, error: missingExport(specifier, name, resolved.exports) };
    }
  }
  return { kind, specifier };
}

function walk(node: unknown, visit: (node: Node) => void): void {
  if (node === null || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit);
    return;
  }
  const record = node as Record<string, unknown>;
  if (typeof record.type === "string") visit(node as Node);
  for (const key in record) {
    if (key === "loc" || key === "type") continue;
    const value = record[key];
    if (value !== null && typeof value === "object") walk(value, visit);
  }
}

/** Top-level `return` form -> module form, keeping every line where it was. */
function wrapTopLevelReturn(source: string, imports: readonly Node[]): string {
  let body = source;
  const hoisted: string[] = [];
  for (const node of [...imports].sort((a, b) => b.start - a.start)) {
    const text = source.slice(node.start, node.end);
    hoisted.unshift(text.replace(/\s*\n\s*/g, " "));
    body = body.slice(0, node.start) + text.replace(/[^\n]/g, " ") + body.slice(node.end);
  }
  return `export default await (async () => {${body}\n})();\n${hoisted.join("\n")}\n`;
}
