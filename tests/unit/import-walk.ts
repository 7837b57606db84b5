/**
 * Walks the imports of the project's TypeScript and reports what CONVENTIONS.md and DESIGN.md section 3
 * forbid: import cycles, and imports against the folder direction. Runtime imports come from esbuild's
 * type-stripped output read by es-module-lexer (esbuild drops type-only imports, so those are not
 * runtime edges). Type-level imports come from a second pass that keeps every import (`import type`
 * rewritten as a value import, `verbatimModuleSyntax`), minus the runtime ones. Pure over a
 * `SourceTree`, so the rules are tested on small in-memory trees as well as run on the real one.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { init, parse } from "es-module-lexer";
import { transform } from "esbuild";

/** Folders whose imports obey the direction rules. */
export const RULED = ["shared", "worker", "server-bridge", "web"] as const;
/** Folders walked only as importers: their edges count for cycles and resolution, no direction rule. */
export const IMPORTERS = ["bench", "tests"] as const;

const SKIP_DIRS = new Set(["node_modules", "dist", ".data", "coverage"]);
const NODE_BUILTINS = new Set(builtinModules);

export interface SourceTree {
  /** Project-relative POSIX paths of every .ts/.tsx file to walk. */
  files(): string[];
  read(file: string): string;
  /** Whether a project-relative path is a file (any extension). */
  exists(file: string): boolean;
}

/**
 * `runtime`: a static import or re-export that survives type stripping. `dynamic`: `import()` of a
 * string literal, or of a template literal expanded over the walked files.
 * `type`: present in the source, gone at runtime. `entry`: a separate bundle (a worker entry URL via
 * `new URL("...", import.meta.url)` or a `?worker` / `?url` import), not part of this module's graph.
 */
export type EdgeKind = "runtime" | "dynamic" | "type" | "entry";

export interface Edge {
  from: string;
  specifier: string;
  kind: EdgeKind;
  /** The project file it resolves to; undefined for a package or a Node builtin. */
  to?: string;
}

export interface WalkReport {
  files: string[];
  edges: Edge[];
  violations: string[];
}

const ENTRY_URL = /\bnew\s+URL\(\s*(["'`])([^"'`]+)\1\s*,\s*import\.meta\.url\s*\)/g;
const ENTRY_QUERY = /\?(?:.*&)?(?:worker|sharedworker|url)(?:&|$)/;
/** `import type ...` and `export type {...} from` / `export type * from`, rewritten as value imports. */
const IMPORT_TYPE = /\bimport\s+type\b(?=\s*[\w{*])/g;
const EXPORT_TYPE_FROM = /\bexport\s+type(?=\s*(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?)\s*from\b)/g;
/**
 * A type query (`typeof import(...)`, `import(...).T`), which esbuild drops with the types. Read from the
 * raw source, so it can also match text in a string or comment: such a match counts only if it names
 * an existing project file.
 */
const TYPE_QUERY = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

interface Found {
  specifier: string;
  dynamic: boolean;
  /** `import(\`./x/${name}.ts\`)`: the specifier has a `*` for each substitution. */
  glob: boolean;
}

function specifiersOf(code: string, file: string): Found[] {
  const [imports] = parse(code, file);
  const out: Found[] = [];
  for (const imp of imports) {
    if (imp.type === "import-meta") continue;
    if (imp.type === "dynamic") {
      // import() of a computed value names no module.
      if (imp.specifier !== undefined) out.push({ specifier: imp.specifier, dynamic: true, glob: imp.glob });
      continue;
    }
    out.push({ specifier: imp.specifier, dynamic: false, glob: false });
  }
  return out;
}

export async function walkImports(tree: SourceTree): Promise<WalkReport> {
  await init();
  const files = tree.files().sort();
  const edges: Edge[] = [];
  const violations: string[] = [];
  // esbuild's async API transforms files in parallel in its own process: about twice as fast as one by one.
  const transformed = await Promise.all(files.map((file) => stripTypes(file, tree.read(file))));
  for (const [i, file] of files.entries()) {
    const result = transformed[i];
    if (result === undefined || "error" in result) {
      violations.push(`${file}: does not parse (${result?.error ?? "no output"})`);
      continue;
    }
    const { source, runtimeCode, allCode } = result;
    const seen = new Set<string>();
    /** `loose`: found by a regex, so a match that names no project file is text, not an import. */
    const add = (specifier: string, kind: EdgeKind, loose = false) => {
      if (seen.has(`${kind} ${specifier}`)) return;
      const to = resolve(tree, file, specifier);
      if (loose && (to === null || to === undefined)) return;
      seen.add(`${kind} ${specifier}`);
      const edge: Edge = { from: file, specifier, kind };
      if (to === null) {
        violations.push(`${file}: "${specifier}" does not resolve to a file (use an explicit .ts extension)`);
      } else if (to !== undefined) {
        edge.to = to;
      }
      edges.push(edge);
    };
    const runtime = new Set<string>();
    for (const { specifier, dynamic, glob } of specifiersOf(runtimeCode, file)) {
      runtime.add(specifier);
      if (glob) {
        for (const match of expandGlob(files, file, specifier)) add(match, "dynamic");
      } else {
        add(specifier, ENTRY_QUERY.test(specifier) ? "entry" : dynamic ? "dynamic" : "runtime");
      }
    }
    // A URL may name an asset or a folder too; it is an edge only when it names a project file.
    for (const match of runtimeCode.matchAll(ENTRY_URL)) {
      runtime.add(match[2] as string);
      add(match[2] as string, "entry", true);
    }
    for (const { specifier } of specifiersOf(allCode, file)) if (!runtime.has(specifier)) add(specifier, "type");
    for (const match of source.matchAll(TYPE_QUERY)) {
      const specifier = match[1] as string;
      if (!runtime.has(specifier)) add(specifier, "type", true);
    }
  }
  violations.push(...directionViolations(edges), ...cycleViolations(files, edges));
  return { files, edges, violations };
}

type Stripped = { source: string; runtimeCode: string; allCode: string } | { error: string };

async function stripTypes(file: string, source: string): Promise<Stripped> {
  const loader = file.endsWith(".tsx") ? "tsx" : "ts";
  try {
    // Default TypeScript semantics: type-only imports, and imports used only as types, are dropped.
    const runtime = transform(source, { loader, jsx: "automatic" });
    // Every import kept, `import type` included, to see what the file refers to at the type level.
    const valueSource = source.replace(IMPORT_TYPE, "import").replace(EXPORT_TYPE_FROM, "export");
    const all = transform(valueSource, {
      loader,
      jsx: "automatic",
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
    });
    return { source, runtimeCode: (await runtime).code, allCode: (await all).code };
  } catch (err) {
    return { error: err instanceof Error ? (err.message.split("\n")[0] ?? "") : "error" };
  }
}

/** The walked files a relative template import can load, as specifiers relative to `from`. */
function expandGlob(files: readonly string[], from: string, specifier: string): string[] {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return [];
  const dir = path.posix.dirname(from);
  const pattern = path.posix.normalize(path.posix.join(dir, specifier));
  const regex = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`);
  return files
    .filter((f) => regex.test(f))
    .map((f) => {
      const rel = path.posix.relative(dir, f);
      return rel.startsWith("../") ? rel : `./${rel}`;
    });
}

/** undefined: not a project path (package, builtin); null: a relative path that names no file. */
function resolve(tree: SourceTree, from: string, specifier: string): string | undefined | null {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  const bare = specifier.replace(/[?#].*$/, "");
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), bare));
  if (target.startsWith("../")) return null;
  return tree.exists(target) ? target : null;
}

function folderOf(file: string): string {
  return file.split("/")[0] ?? "";
}

function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith("node:") || NODE_BUILTINS.has(specifier.split("/")[0] ?? "");
}

function directionViolations(edges: readonly Edge[]): string[] {
  const out: string[] = [];
  for (const edge of edges) {
    const from = folderOf(edge.from);
    if (!(RULED as readonly string[]).includes(from)) continue;
    const what = `${edge.from} -> "${edge.specifier}" (${edge.kind})`;
    if (edge.to === undefined) {
      if (from === "shared" && isNodeBuiltin(edge.specifier))
        out.push(`${what}: shared/ runs anywhere and must not import Node modules`);
      continue;
    }
    const to = folderOf(edge.to);
    if (to === from) continue;
    if ((IMPORTERS as readonly string[]).includes(to)) {
      out.push(`${what}: ${to}/ is only ever an importer`);
    } else if (from === "shared" && to !== "shared") {
      out.push(`${what}: shared/ imports none of web/, worker/, server-bridge/`);
    } else if (from === "worker" && (to === "web" || to === "server-bridge")) {
      out.push(`${what}: worker/ never imports ${to}/`);
    } else if (from === "web" && to === "server-bridge" && edge.kind !== "type") {
      out.push(`${what}: web/ may import server-bridge/ only with \`import type\``);
    } else if (from === "web" && to === "worker" && edge.kind !== "type" && edge.kind !== "entry") {
      out.push(`${what}: web/ may use worker/ only as a worker entry URL or with \`import type\``);
    }
  }
  return out;
}

/** Cycles over runtime and dynamic edges between project files (Tarjan's strongly connected components). */
function cycleViolations(files: readonly string[], edges: readonly Edge[]): string[] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const edge of edges) {
    if (edge.to === undefined || (edge.kind !== "runtime" && edge.kind !== "dynamic")) continue;
    next.get(edge.from)?.push(edge.to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[] = [];
  let counter = 0;
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || next.get(v)?.includes(v)) {
      out.push(`import cycle: ${cyclePath(component, next).join(" -> ")}`);
    }
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return out;
}

/** One concrete loop through a strongly connected component, for a readable message. */
function cyclePath(component: readonly string[], next: ReadonlyMap<string, string[]>): string[] {
  const members = new Set(component);
  const start = [...component].sort()[0] as string;
  const pathSoFar = [start];
  const visited = new Set([start]);
  let at = start;
  for (;;) {
    const targets = (next.get(at) ?? []).filter((t) => members.has(t));
    const back = targets.find((t) => t === start);
    if (back !== undefined) return [...pathSoFar, start];
    const step = targets.find((t) => !visited.has(t)) ?? targets[0];
    if (step === undefined || visited.has(step)) return [...pathSoFar, step ?? start];
    pathSoFar.push(step);
    visited.add(step);
    at = step;
  }
}

/** The real tree under `root`. */
export function diskTree(root: string): SourceTree {
  const list: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(path.join(root, dir));
    } catch {
      return;
    }
    for (const name of names) {
      if (SKIP_DIRS.has(name) || name.startsWith(".")) continue;
      const rel = `${dir}/${name}`;
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) list.push(rel);
    }
  };
  for (const folder of [...RULED, ...IMPORTERS]) walk(folder);
  return {
    files: () => list,
    read: (file) => readFileSync(path.join(root, file), "utf8"),
    exists: (file) => {
      try {
        return statSync(path.join(root, file)).isFile();
      } catch {
        return false;
      }
    },
  };
}

/** An in-memory tree, for testing the rules themselves. */
export function memoryTree(sources: Record<string, string>): SourceTree {
  return {
    files: () => Object.keys(sources).filter((f) => /\.tsx?$/.test(f)),
    read: (file) => sources[file] ?? "",
    exists: (file) => file in sources,
  };
}
