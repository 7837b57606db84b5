/**
 * Type-checks one action (JavaScript, checked as TypeScript checks JS) against the generated
 * declarations, with the TypeScript compiler handed in (typescript@6 under the `typescript6` alias:
 * TypeScript 7's tsc has no JavaScript API). No file system: the standard library files and the
 * declarations are given as text, parsed once and reused across checks. Used by the editor's lazily
 * loaded worker (typecheck.worker.ts) and by the tests, with the same options.
 */
import type ts from "typescript6";
import type { TypeProblem } from "./typecheck-protocol.ts";

type Ts = typeof ts;

const ACTION = "/action.js";
const DECLARATIONS = "/nodetool.d.ts";
const LIB_DIR = "/lib";

/** A top-level `return` is the sandbox's non-module form (DESIGN.md section 6), not a mistake. */
const ALLOWED_CODES = new Set([1108]);

export interface TypeChecker {
  check(action: string, declarations: string): TypeProblem[];
}

/** A checker over the given standard library files (by file name: `lib.es2023.d.ts`). */
export function createTypeChecker(compiler: Ts, libs: ReadonlyMap<string, string>): TypeChecker {
  const options: ts.CompilerOptions = {
    target: compiler.ScriptTarget.ES2022,
    module: compiler.ModuleKind.ESNext,
    moduleResolution: compiler.ModuleResolutionKind.Bundler,
    moduleDetection: compiler.ModuleDetectionKind.Force,
    lib: ["lib.es2023.d.ts"],
    types: [],
    allowJs: true,
    checkJs: true,
    strict: true,
    // Plain JavaScript has no annotations to give: an untyped parameter is not a mistake here.
    noImplicitAny: false,
    noEmit: true,
    skipLibCheck: true,
  };
  const parsedLibs = new Map<string, ts.SourceFile>();
  let declarations: { text: string; file: ts.SourceFile } | undefined;
  let previous: ts.Program | undefined;

  const libText = (path: string) =>
    path.startsWith(`${LIB_DIR}/`) ? libs.get(path.slice(LIB_DIR.length + 1)) : undefined;

  return {
    check(action, declarationText) {
      if (declarations?.text !== declarationText) {
        declarations = {
          text: declarationText,
          file: compiler.createSourceFile(DECLARATIONS, declarationText, compiler.ScriptTarget.ES2022),
        };
      }
      const actionFile = compiler.createSourceFile(ACTION, action, compiler.ScriptTarget.ES2022, true);
      const declared = declarations.file;
      const host: ts.CompilerHost = {
        getSourceFile(path, version) {
          if (path === ACTION) return actionFile;
          if (path === DECLARATIONS) return declared;
          let file = parsedLibs.get(path);
          const text = file ? undefined : libText(path);
          if (!file && text !== undefined) {
            file = compiler.createSourceFile(path, text, version);
            parsedLibs.set(path, file);
          }
          return file;
        },
        getDefaultLibFileName: () => `${LIB_DIR}/lib.d.ts`,
        getDefaultLibLocation: () => LIB_DIR,
        writeFile: () => {},
        getCurrentDirectory: () => "/",
        getCanonicalFileName: (name) => name,
        useCaseSensitiveFileNames: () => true,
        getNewLine: () => "\n",
        fileExists: (path) => path === ACTION || path === DECLARATIONS || libText(path) !== undefined,
        readFile: (path) => (path === ACTION ? action : path === DECLARATIONS ? declarationText : libText(path)),
        directoryExists: (path) => path === "/" || path === LIB_DIR,
        getDirectories: () => [],
      };
      const program = compiler.createProgram({
        rootNames: [DECLARATIONS, ACTION],
        options,
        host,
        ...(previous ? { oldProgram: previous } : {}),
      });
      previous = program;
      const diagnostics = [
        ...program.getSyntacticDiagnostics(actionFile),
        ...program.getSemanticDiagnostics(actionFile),
      ];
      return diagnostics
        .filter((d) => !ALLOWED_CODES.has(d.code))
        .map((d) => {
          const start = d.start ?? 0;
          const at = actionFile.getLineAndCharacterOfPosition(start);
          return {
            line: at.line + 1,
            column: at.character + 1,
            from: start,
            to: start + (d.length ?? 0),
            message: compiler.flattenDiagnosticMessageText(d.messageText, "\n"),
            severity: d.category === compiler.DiagnosticCategory.Error ? "error" : "warning",
          };
        });
    },
  };
}
