/**
 * One capability's TypeScript declaration, derived from its spec's input and output JSON Schemas: a
 * named arguments interface, a result type, and its call forms (the named-arguments object, and each
 * prefix of the positional names the dispatcher folds, followed by the rest of the arguments). The
 * module declarations, `describe()`, `/types` and the editor's completion and hover all use this.
 */
import { inputJsonSchema, outputJsonSchema } from "../capabilities/table.ts";
import type { AnySpec } from "../capabilities/types.ts";
import { positionalOf } from "../sandbox/coerce.ts";
import { type JsonSchema, jsdoc, printType, propertiesOf, propertyDoc, propertyKey, requiredKeys } from "./print.ts";

/** One named argument, for completion: its key, printed type and doc. */
export interface ArgumentInfo {
  key: string;
  type: string;
  optional: boolean;
  doc: string;
}

export interface CapabilityDeclaration {
  readonly spec: AnySpec;
  readonly namespace: string;
  /** `ListWorkflowsArgs`, `ListWorkflowsResult`. */
  readonly argsName: string;
  readonly resultName: string;
  /** The two type declarations (exported members of the module), indented for inside it. */
  readonly types: string;
  /** Declarations of the named types (a zod schema's `id`: `Workflow`, `Job`) these refer to, by name. */
  readonly named: ReadonlyMap<string, string>;
  /** The parameter lists after the name, one per call form: `(args?: ListWorkflowsArgs)`. */
  readonly forms: readonly string[];
  /** The JSDoc lines: description, category, positional forms. */
  readonly doc: readonly string[];
  readonly args: readonly ArgumentInfo[];
}

const pascal = (wire: string) =>
  wire
    .split("_")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");

function defsOf(schema: JsonSchema): Record<string, JsonSchema> {
  return typeof schema === "object" && typeof schema.$defs === "object" && schema.$defs !== null
    ? (schema.$defs as Record<string, JsonSchema>)
    : {};
}

/** `export interface X {...}` when the type is an object literal, else `export type X = ...;`. */
function typeDeclaration(name: string, type: string, doc: string, indent: string): string {
  const head = jsdoc([doc], indent);
  return type.startsWith("{")
    ? `${head}${indent}export interface ${name} ${type}`
    : `${head}${indent}export type ${name} = ${type};`;
}

/**
 * Prints a root schema's type, and into `named` the declaration of each named definition it reaches
 * (transitively; every definition of a root lives in its `$defs`).
 */
function printNamed(root: JsonSchema, indent: string, named: Map<string, string>): string {
  const defs = defsOf(root);
  const found = new Map<string, JsonSchema>();
  const type = printType(root, { defs, indent, named: found });
  const queue = [...found.keys()];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    const schema = found.get(name) as JsonSchema;
    if (named.has(name)) continue;
    const before = found.size;
    const body = printType(schema, { defs, indent, named: found });
    const doc = typeof schema === "object" && typeof schema.description === "string" ? schema.description : "";
    named.set(name, typeDeclaration(name, body, doc, indent));
    queue.push(...[...found.keys()].slice(before));
  }
  return type;
}

const cache = new WeakMap<AnySpec, CapabilityDeclaration>();

/** Members of a `declare module` block are indented this much. */
const INDENT = "  ";

export function capabilityDeclaration(namespace: string, spec: AnySpec): CapabilityDeclaration {
  const cached = cache.get(spec);
  if (cached) return cached;
  const input = inputJsonSchema(spec) as JsonSchema;
  const output = outputJsonSchema(spec) as JsonSchema;
  const argsName = `${pascal(spec.name)}Args`;
  const resultName = `${pascal(spec.name)}Result`;
  const call = `${namespace}.${spec.method}`;
  const named = new Map<string, string>();
  const argsType = printNamed(input, INDENT, named);
  const resultType = printNamed(output, INDENT, named);
  const types = [
    typeDeclaration(argsName, argsType, `Arguments of ${call} (${spec.name}).`, INDENT),
    typeDeclaration(resultName, resultType, `What ${call} (${spec.name}) returns.`, INDENT),
  ].join("\n");

  const required = requiredKeys(input);
  const properties = new Map(propertiesOf(input));
  const args: ArgumentInfo[] = [...properties].map(([key, schema]) => ({
    key,
    // Named definitions by name (their declarations are in `named`), so the type stays one line or so.
    type: printType(schema, { defs: defsOf(input), named: new Map() }),
    optional: !required.has(key),
    doc: propertyDoc(schema).join("\n"),
  }));
  const result = `Promise<${resultName}>`;
  const forms = [`(args${required.size === 0 ? "?" : ""}: ${argsName}): ${result}`];
  const positional = positionalOf(spec).filter((key) => properties.has(key));
  for (let count = 1; count <= positional.length; count++) {
    const taken = positional.slice(0, count);
    const params = taken.map((key) => `${safeParam(key)}: ${args.find((a) => a.key === key)?.type ?? "unknown"}`);
    const left = [...required].filter((key) => !taken.includes(key));
    const rest = `Omit<${argsName}, ${taken.map((key) => JSON.stringify(key)).join(" | ")}>`;
    forms.push(`(${[...params, `args${left.length === 0 ? "?" : ""}: ${rest}`].join(", ")}): ${result}`);
  }
  const doc = [spec.description, `Category: ${spec.category}.`];
  if (positional.length > 0) doc.push(`Positional: ${positional.join(", ")} (then an object of the other arguments).`);
  const declaration: CapabilityDeclaration = { spec, namespace, argsName, resultName, types, named, forms, doc, args };
  cache.set(spec, declaration);
  return declaration;
}

const RESERVED = new Set(["default", "function", "delete", "new", "class", "in", "for", "var", "const", "let"]);

function safeParam(key: string): string {
  return RESERVED.has(key) ? `${key}_` : key;
}

/** The wire-name function declarations of one capability (every form; the doc on the first). */
export function functionDeclarations(declaration: CapabilityDeclaration, indent = INDENT): string {
  const { spec, forms, doc } = declaration;
  return forms
    .map((form, i) => `${i === 0 ? jsdoc(doc, indent) : ""}${indent}export function ${spec.name}${form};`)
    .join("\n");
}

/** A namespace object's member for one capability: its method name, typed as the wire-name function. */
export function memberDeclaration(declaration: CapabilityDeclaration, indent = INDENT + INDENT): string {
  const { spec } = declaration;
  return `${jsdoc([spec.description], indent)}${indent}${propertyKey(spec.method)}: typeof ${spec.name};`;
}
