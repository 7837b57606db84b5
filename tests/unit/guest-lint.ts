/**
 * Finds where a guest module (worker/guest/*.js, run inside QuickJS next to the action) reaches a
 * builtin the action could have replaced: a global name it does not import or declare, a call of a
 * builtin prototype method by name (`list.push(x)`), `instanceof`, or syntax that runs the iterator
 * protocol (`for...of`, array spread, array destructuring). The sandbox's modules must use the copies
 * worker/guest/capture.js took (by name, from intrinsics.js) instead. Scope handling is deliberately
 * coarse (a name declared anywhere in the file counts as declared): the guest modules are small, and a
 * false alarm is cheap to fix.
 */
import { parse } from "acorn";

type AstNode = { type: string; start: number; [key: string]: unknown };

/** Names of methods on the builtin prototypes an action can reach, read off this runtime's own. */
export function builtinMethodNames(): Set<string> {
  const typedArray = Object.getPrototypeOf(Uint8Array.prototype) as object;
  const prototypes: object[] = [
    Object.prototype,
    Function.prototype,
    Array.prototype,
    String.prototype,
    Number.prototype,
    Map.prototype,
    Set.prototype,
    WeakMap.prototype,
    Promise.prototype,
    RegExp.prototype,
    Date.prototype,
    Error.prototype,
    typedArray,
  ];
  const names = new Set<string>();
  for (const proto of prototypes) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== "constructor") names.add(name);
    }
  }
  return names;
}

/** Prototype accessors that run builtin code an action can replace. */
const BUILTIN_GETTERS = new Set(["size", "byteLength", "byteOffset", "buffer", "lastIndex"]);
const ALLOWED_GLOBALS = new Set(["undefined"]);

function children(node: AstNode): AstNode[] {
  const out: AstNode[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "type" || key === "start" || key === "end") continue;
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (item && typeof item === "object" && typeof (item as AstNode).type === "string") out.push(item as AstNode);
    }
  }
  return out;
}

function patternNames(pattern: AstNode | null | undefined, into: Set<string>): void {
  if (!pattern) return;
  switch (pattern.type) {
    case "Identifier":
      into.add(pattern.name as string);
      return;
    case "ObjectPattern":
      for (const prop of pattern.properties as AstNode[]) {
        patternNames((prop.type === "RestElement" ? prop.argument : prop.value) as AstNode, into);
      }
      return;
    case "ArrayPattern":
      for (const element of pattern.elements as (AstNode | null)[]) patternNames(element, into);
      return;
    case "RestElement":
      patternNames(pattern.argument as AstNode, into);
      return;
    case "AssignmentPattern":
      patternNames(pattern.left as AstNode, into);
      return;
  }
}

function declaredNames(root: AstNode): Set<string> {
  const names = new Set<string>();
  const visit = (node: AstNode) => {
    switch (node.type) {
      case "ImportSpecifier":
      case "ImportDefaultSpecifier":
      case "ImportNamespaceSpecifier":
        names.add((node.local as AstNode).name as string);
        break;
      case "VariableDeclarator":
        patternNames(node.id as AstNode, names);
        break;
      case "FunctionDeclaration":
      case "FunctionExpression":
      case "ArrowFunctionExpression":
        if (node.id) names.add((node.id as AstNode).name as string);
        for (const param of node.params as AstNode[]) patternNames(param, names);
        break;
      case "ClassDeclaration":
      case "ClassExpression":
        if (node.id) names.add((node.id as AstNode).name as string);
        break;
      case "CatchClause":
        patternNames(node.param as AstNode | null, names);
        break;
    }
    for (const child of children(node)) visit(child);
  };
  visit(root);
  return names;
}

/** Every place in `source` that reaches a replaceable builtin, as `line:column what`. */
export function guestLint(source: string, methods: ReadonlySet<string> = builtinMethodNames()): string[] {
  const root = parse(source, { ecmaVersion: "latest", sourceType: "module", locations: true }) as unknown as AstNode;
  const declared = declaredNames(root);
  const found: string[] = [];
  const at = (node: AstNode) => {
    const loc = node.loc as { start: { line: number; column: number } };
    return `${loc.start.line}:${loc.start.column + 1}`;
  };
  const visit = (node: AstNode, parent: AstNode | undefined) => {
    switch (node.type) {
      case "ForOfStatement":
        found.push(`${at(node)} for...of runs the iterator protocol`);
        break;
      case "ArrayPattern":
        found.push(`${at(node)} array destructuring runs the iterator protocol`);
        break;
      case "SpreadElement":
        if (parent?.type !== "ObjectExpression") found.push(`${at(node)} spread runs the iterator protocol`);
        break;
      case "BinaryExpression":
        if (node.operator === "instanceof") found.push(`${at(node)} instanceof looks up Symbol.hasInstance`);
        break;
      case "CallExpression": {
        const callee = node.callee as AstNode;
        // `this.#replace()` is the class's own private method, not a builtin's.
        if (
          callee.type === "MemberExpression" &&
          !callee.computed &&
          (callee.property as AstNode).type === "Identifier"
        ) {
          const name = (callee.property as AstNode).name as string;
          if (methods.has(name)) found.push(`${at(node)} .${name}() is a builtin method the action can replace`);
        }
        break;
      }
      case "MemberExpression":
        if (!node.computed && BUILTIN_GETTERS.has((node.property as AstNode).name as string)) {
          found.push(`${at(node)} .${(node.property as AstNode).name as string} runs a builtin getter`);
        }
        break;
      case "Identifier": {
        const name = node.name as string;
        if (!isReference(node, parent)) break;
        if (!declared.has(name) && !ALLOWED_GLOBALS.has(name)) {
          found.push(`${at(node)} ${name} is a global the action can replace`);
        }
        break;
      }
    }
    for (const child of children(node)) visit(child, node);
  };
  visit(root, undefined);
  return found;
}

/** Whether an Identifier reads a binding (not a property name, a key, a label or a declaration). */
function isReference(node: AstNode, parent: AstNode | undefined): boolean {
  if (!parent) return true;
  switch (parent.type) {
    case "MemberExpression":
      return parent.object === node || Boolean(parent.computed);
    case "Property":
      return parent.value === node || (Boolean(parent.computed) && parent.key === node);
    case "MethodDefinition":
    case "PropertyDefinition":
      return Boolean(parent.computed) && parent.key === node;
    case "ImportSpecifier":
    case "ImportDefaultSpecifier":
    case "ImportNamespaceSpecifier":
    case "ExportSpecifier":
    case "LabeledStatement":
    case "BreakStatement":
    case "ContinueStatement":
      return false;
    case "VariableDeclarator":
      return parent.init === node;
    case "FunctionDeclaration":
    case "FunctionExpression":
    case "ArrowFunctionExpression":
    case "ClassDeclaration":
    case "ClassExpression":
      return parent.body === node || parent.superClass === node;
    case "CatchClause":
      return false;
    case "AssignmentPattern":
      return parent.right === node;
    case "RestElement":
      return false;
    default:
      return true;
  }
}
