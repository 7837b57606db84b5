/**
 * The code node's contract, and the action made from it.
 *
 * `data.code` is one JavaScript function expression: `(input) => input.n * 2`, `async (input) => {...}`
 * or `function (input) {...}`. It is called once with the node's `input`, and its (awaited) return
 * value is the node's output. A function body that uses `input` and ends in `return ...` is accepted
 * too. The input arrives as JSON (an asset as `{$asset: id}`, bytes as `{$bytes: base64}`); the output
 * must be JSON too, and a returned `Uint8Array` becomes bytes. A returned `{$asset: id}` object is the
 * code's own data, never an asset reference (pass the id to an asset node instead). Nothing can be imported: a code node
 * runs with no capability module and no library pack, so an import is refused (`import_refused`).
 *
 * The code is checked with a real parser before it goes into the wrapper: it must be exactly one
 * expression, or a complete function body, so it can never close the wrapper early and put statements
 * around it. The input never becomes code: it is embedded as a JSON string literal and parsed in the
 * guest. (The sandbox, not this check, is the security boundary; the check keeps the wrapper's
 * promise: the function is called once, with the input, and what it returns is the output.)
 */
import { type Node, type Options, type Program, parse, parseExpressionAt, tokenizer } from "acorn";
import type { ErrorCode } from "../../shared/protocol/errors.ts";
import { AssetRef, bytesToBase64 } from "../../shared/protocol/values.ts";

/** Why code cannot run, as the node's failure. */
export interface Refusal {
  ok: false;
  code: ErrorCode;
  message: string;
}

export type CodeAction =
  | {
      ok: true;
      source: string;
      /** The lines of the generated source that hold the node's code (1-based, inclusive). */
      lines: { first: number; last: number };
    }
  | Refusal;

/** The worker takes actions up to this size (shared/protocol/worker.ts RunRequest). */
const MAX_ACTION_CHARS = 1_000_000;

const PARSE: Options = { ecmaVersion: "latest", sourceType: "module" };

const SHAPE =
  "The code must be a function expression such as (input) => input.n * 2, or a function body that uses input and ends in return";

/**
 * The input as the code sees it (the contract above): plain JSON, an asset as `{$asset: id}` and bytes
 * as `{$bytes: base64}`. A presentation for the function's argument only: nothing reads it back, and
 * what the function returns comes back through the sandbox's own encoding.
 */
export function codeInputJson(input: unknown): string {
  return (
    JSON.stringify(input, function (this: Record<string, unknown>, key, value: unknown) {
      const raw = this[key];
      if (raw instanceof Uint8Array) return { $bytes: bytesToBase64(raw) };
      if (raw instanceof AssetRef) return { $asset: raw.id };
      return value;
    }) ?? "null"
  );
}

/** Builds the action for one call of a code node; `inputJson` is the input as JSON text. */
export function codeAction(code: string, inputJson: string): CodeAction {
  const form = formOf(code);
  if (!form.ok) return form;
  const refused = importIn(form.tree);
  if (refused) return refused;
  const head = `const input = JSON.parse(${JSON.stringify(inputJson)});\n`;
  const source =
    form.kind === "function"
      ? `${head}const fn = (\n${code}\n);\nexport default await fn(input);\n`
      : `${head}const fn = async function (input) {\n${code}\n};\nexport default await fn(input);\n`;
  if (source.length > MAX_ACTION_CHARS) {
    return {
      ok: false,
      code: "capability_failed",
      message: `The code and its input come to ${source.length} characters; a code node takes at most ${MAX_ACTION_CHARS}. Pass a smaller input (a slice, or only the fields it needs).`,
    };
  }
  return { ok: true, source, lines: { first: 3, last: 2 + code.split("\n").length } };
}

type Form = { ok: true; kind: "function" | "body"; tree: Node } | Refusal;

function formOf(code: string): Form {
  const expression = wholeExpression(code);
  if (expression) {
    if (expression.type === "ArrowFunctionExpression" || expression.type === "FunctionExpression") {
      return { ok: true, kind: "function", tree: expression };
    }
    return {
      ok: false,
      code: "action_failed",
      message: `The code is an expression, not a function: write it as a function of input, e.g. (input) => ${code.trim().slice(0, 80)}.`,
    };
  }
  let program: Program;
  try {
    program = parse(code, { ...PARSE, allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true });
  } catch (err) {
    const why = err instanceof SyntaxError ? err.message : "it does not parse";
    return { ok: false, code: "action_failed", message: `The code has a syntax error: ${why}. ${SHAPE}.` };
  }
  for (const statement of program.body) {
    if (statement.type === "ImportDeclaration") return refusal(String(statement.source.value));
    if (statement.type.startsWith("Export")) {
      return {
        ok: false,
        code: "action_failed",
        message: `The code cannot export anything: return the output instead. ${SHAPE}.`,
      };
    }
  }
  return { ok: true, kind: "body", tree: program };
}

/** The code as one expression, when it is exactly that (nothing but whitespace or comments after it). */
function wholeExpression(code: string): Node | undefined {
  let expression: Node;
  try {
    expression = parseExpressionAt(code, 0, PARSE);
  } catch {
    return undefined;
  }
  try {
    for (const _token of tokenizer(code.slice(expression.end), PARSE)) return undefined;
  } catch {
    return undefined;
  }
  return expression;
}

/** An `import(...)` anywhere in the code: refused before the sandbox starts, naming the module. */
function importIn(tree: Node): Refusal | undefined {
  let found: Refusal | undefined;
  walk(tree, (node) => {
    if (found || node.type !== "ImportExpression") return;
    const source = (node as Node & { source: Node & { value?: unknown } }).source;
    found = refusal(source.type === "Literal" ? String(source.value) : "a computed module name");
  });
  return found;
}

function refusal(specifier: string): Refusal {
  return {
    ok: false,
    code: "import_refused",
    message: `Code nodes cannot import modules ("${specifier}"): they run with no capability modules and no library packs. Pass what the code needs in through its input, and use other nodes for effects.`,
  };
}

function walk(node: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit);
    return;
  }
  if (node === null || typeof node !== "object" || typeof (node as { type?: unknown }).type !== "string") return;
  visit(node as Node);
  for (const [key, value] of Object.entries(node)) {
    if (key !== "loc" && value !== null && typeof value === "object") walk(value, visit);
  }
}
