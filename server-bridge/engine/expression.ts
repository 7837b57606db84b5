/**
 * A safe arithmetic evaluator for `math.expression`: a small recursive-descent parser over numbers
 * only. No `eval`, no property access, no strings: the only names are the constants and functions
 * below and variables, which the caller supplies as numbers.
 *
 *   expr    := term (("+" | "-") term)*
 *   term    := unary (("*" | "/" | "%") unary)*
 *   unary   := ("-" | "+") unary | power
 *   power   := primary ("^" unary)?            right-associative; -2^2 is -(2^2)
 *   primary := number | name | name "(" expr ("," expr)* ")" | "(" expr ")"
 */
import { NodeError } from "./types.ts";

export type Expr =
  | { kind: "num"; value: number }
  | { kind: "var"; name: string }
  | { kind: "unary"; op: "-"; arg: Expr }
  | { kind: "binary"; op: "+" | "-" | "*" | "/" | "%" | "^"; left: Expr; right: Expr }
  | { kind: "call"; name: string; args: Expr[] };

const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, e: Math.E };

/** name -> [min args, max args, fn]. A Map, so `constructor` or `__proto__` can never be found. */
const FUNCTIONS: ReadonlyMap<string, readonly [number, number, (...xs: number[]) => number]> = new Map(
  Object.entries({
    abs: [1, 1, Math.abs],
    sqrt: [1, 1, Math.sqrt],
    cbrt: [1, 1, Math.cbrt],
    floor: [1, 1, Math.floor],
    ceil: [1, 1, Math.ceil],
    round: [1, 1, Math.round],
    trunc: [1, 1, Math.trunc],
    sign: [1, 1, Math.sign],
    exp: [1, 1, Math.exp],
    log: [1, 1, Math.log],
    log2: [1, 1, Math.log2],
    log10: [1, 1, Math.log10],
    sin: [1, 1, Math.sin],
    cos: [1, 1, Math.cos],
    tan: [1, 1, Math.tan],
    asin: [1, 1, Math.asin],
    acos: [1, 1, Math.acos],
    atan: [1, 1, Math.atan],
    atan2: [2, 2, Math.atan2],
    pow: [2, 2, Math.pow],
    min: [1, 100, Math.min],
    max: [1, 100, Math.max],
    hypot: [1, 100, Math.hypot],
  } as const),
);

const MAX_LENGTH = 2000;
const MAX_DEPTH = 64;

type Token = { kind: "num"; value: number; at: number } | { kind: "name" | "op"; text: string; at: number };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|([-+*/%^(),]))/y;
  let at = 0;
  while (at < source.length) {
    if (/^\s*$/.test(source.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(source);
    if (!m) throw syntax(source, at, `unexpected "${source.slice(at).trimStart()[0]}"`);
    const start = m.index + m[0].length - (m[1] ?? m[2] ?? m[3] ?? "").length;
    if (m[1] !== undefined) tokens.push({ kind: "num", value: Number(m[1]), at: start });
    else if (m[2] !== undefined) tokens.push({ kind: "name", text: m[2], at: start });
    else tokens.push({ kind: "op", text: m[3] as string, at: start });
    at = re.lastIndex;
  }
  return tokens;
}

function syntax(source: string, at: number, why: string): NodeError {
  return new NodeError(`Expression "${source}" is not valid: ${why} at character ${at + 1}.`);
}

export function parseExpression(source: string): Expr {
  if (source.length > MAX_LENGTH) throw new NodeError(`Expression is longer than ${MAX_LENGTH} characters.`);
  const tokens = tokenize(source);
  let pos = 0;
  let depth = 0;
  const peek = () => tokens[pos];
  const isOp = (text: string) => {
    const t = tokens[pos];
    return t !== undefined && t.kind === "op" && t.text === text;
  };
  const where = () => tokens[pos]?.at ?? source.length;
  const expect = (text: string) => {
    if (!isOp(text)) throw syntax(source, where(), `expected "${text}"`);
    pos++;
  };
  const nest = <T>(fn: () => T): T => {
    if (++depth > MAX_DEPTH) throw syntax(source, where(), `nesting deeper than ${MAX_DEPTH}`);
    try {
      return fn();
    } finally {
      depth--;
    }
  };

  const expr = (): Expr =>
    nest(() => {
      let left = term();
      while (isOp("+") || isOp("-")) {
        const op = (tokens[pos++] as { text: "+" | "-" }).text;
        left = { kind: "binary", op, left, right: term() };
      }
      return left;
    });
  const term = (): Expr => {
    let left = unary();
    while (isOp("*") || isOp("/") || isOp("%")) {
      const op = (tokens[pos++] as { text: "*" | "/" | "%" }).text;
      left = { kind: "binary", op, left, right: unary() };
    }
    return left;
  };
  const unary = (): Expr =>
    nest(() => {
      if (isOp("-")) {
        pos++;
        return { kind: "unary", op: "-", arg: unary() };
      }
      if (isOp("+")) {
        pos++;
        return unary();
      }
      const base = primary();
      if (isOp("^")) {
        pos++;
        return { kind: "binary", op: "^", left: base, right: unary() };
      }
      return base;
    });
  const primary = (): Expr => {
    const token = peek();
    if (!token) throw syntax(source, source.length, "the expression ends too early");
    if (token.kind === "num") {
      pos++;
      return { kind: "num", value: token.value };
    }
    if (token.kind === "name") {
      pos++;
      if (!isOp("(")) return { kind: "var", name: token.text };
      const fn = FUNCTIONS.get(token.text);
      if (!fn) throw syntax(source, token.at, `"${token.text}" is not a known function`);
      pos++;
      const args = [expr()];
      while (isOp(",")) {
        pos++;
        args.push(expr());
      }
      expect(")");
      if (args.length < fn[0] || args.length > fn[1]) {
        const want = fn[0] === fn[1] ? `${fn[0]}` : `${fn[0]} to ${fn[1]}`;
        throw syntax(source, token.at, `${token.text} takes ${want} argument(s), got ${args.length}`);
      }
      return { kind: "call", name: token.text, args };
    }
    if (token.text === "(") {
      pos++;
      const inner = expr();
      expect(")");
      return inner;
    }
    throw syntax(source, token.at, `unexpected "${token.text}"`);
  };

  if (tokens.length === 0) throw new NodeError("Expression is empty: write one such as (a + b) / 2.");
  const tree = expr();
  if (pos < tokens.length) throw syntax(source, where(), "unexpected text after the expression");
  return tree;
}

/** The variables an expression reads (names that are neither constants nor functions). */
export function expressionVariables(tree: Expr, into = new Set<string>()): Set<string> {
  switch (tree.kind) {
    case "num":
      break;
    case "var":
      if (!Object.hasOwn(CONSTANTS, tree.name)) into.add(tree.name);
      break;
    case "unary":
      expressionVariables(tree.arg, into);
      break;
    case "binary":
      expressionVariables(tree.left, into);
      expressionVariables(tree.right, into);
      break;
    case "call":
      for (const arg of tree.args) expressionVariables(arg, into);
      break;
    default: {
      const never: never = tree;
      throw new Error(`unknown expression node ${JSON.stringify(never)}`);
    }
  }
  return into;
}

export function evaluate(tree: Expr, variables: (name: string) => number): number {
  switch (tree.kind) {
    case "num":
      return tree.value;
    case "var":
      return Object.hasOwn(CONSTANTS, tree.name) ? (CONSTANTS[tree.name] as number) : variables(tree.name);
    case "unary":
      return -evaluate(tree.arg, variables);
    case "binary": {
      const a = evaluate(tree.left, variables);
      const b = evaluate(tree.right, variables);
      const op = tree.op;
      switch (op) {
        case "+":
          return a + b;
        case "-":
          return a - b;
        case "*":
          return a * b;
        case "/":
          if (b === 0) throw new NodeError("Division by zero in the expression.");
          return a / b;
        case "%":
          if (b === 0) throw new NodeError("Modulo by zero in the expression.");
          return a % b;
        case "^":
          return a ** b;
        default: {
          const never: never = op;
          throw new Error(`unknown operator ${String(never)}`);
        }
      }
    }
    case "call": {
      const fn = FUNCTIONS.get(tree.name);
      if (!fn) throw new Error(`unknown function ${tree.name}`);
      return fn[2](...tree.args.map((arg) => evaluate(arg, variables)));
    }
    default: {
      const never: never = tree;
      throw new Error(`unknown expression node ${JSON.stringify(never)}`);
    }
  }
}
