/**
 * A small JSON Schema -> TypeScript printer for the schemas `z.toJSONSchema` makes of our specs
 * (draft 2020-12): objects, records, arrays, unions, literals and enums, `$ref`s into `$defs`, and the
 * `x-typescript` keyword naming a host type JSON Schema cannot express (`Uint8Array`, `AssetRef`). It
 * prints only what the specs use; anything else is `unknown`, which is never wrong, only less useful.
 * Descriptions (and defaults, on inputs) become JSDoc on the property they belong to.
 */
import { TS_TYPE } from "../protocol/values.ts";

export type JsonSchema = boolean | { [key: string]: unknown };

type SchemaObject = { [key: string]: unknown };

export interface PrintOptions {
  /** The root schema's `$defs` (refs resolve into them). */
  defs?: Record<string, JsonSchema>;
  /** Indentation of the line the type starts on. */
  indent?: string;
  /**
   * Collects the named definitions (a zod schema's `id`) the type refers to, so they are declared once
   * and referred to by name; without it they are printed inline.
   */
  named?: Map<string, JsonSchema>;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function isObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a property must be written: the schema's `required`, or (output) a field with a default. */
export function requiredKeys(schema: JsonSchema): Set<string> {
  return new Set(isObject(schema) && Array.isArray(schema.required) ? (schema.required as string[]) : []);
}

export function propertiesOf(schema: JsonSchema): [string, JsonSchema][] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  return Object.entries(schema.properties as Record<string, JsonSchema>);
}

/** The z.json() shape: any of string, number, boolean, null, an array of itself, an object of itself. */
function isJsonShape(schema: SchemaObject): boolean {
  const members = schema.anyOf;
  if (!Array.isArray(members) || members.length !== 6) return false;
  const types = members.map((m) => (isObject(m) ? String(m.type) : "")).sort();
  return types.join() === "array,boolean,null,number,object,string";
}

export function jsdoc(lines: readonly string[], indent: string): string {
  const text = lines.filter(Boolean);
  if (text.length === 0) return "";
  if (text.length === 1 && !text[0]?.includes("\n")) return `${indent}/** ${escapeDoc(text[0] ?? "")} */\n`;
  const body = text
    .flatMap((line) => line.split("\n"))
    .map((line) => `${indent} * ${escapeDoc(line)}`.trimEnd())
    .join("\n");
  return `${indent}/**\n${body}\n${indent} */\n`;
}

function escapeDoc(text: string): string {
  return text.replace(/\*\//g, "*\\/");
}

export function propertyKey(key: string): string {
  return IDENT.test(key) ? key : JSON.stringify(key);
}

/** Doc lines of one property: its description, and its default when it has one. */
export function propertyDoc(schema: JsonSchema): string[] {
  if (!isObject(schema)) return [];
  const lines: string[] = [];
  if (typeof schema.description === "string") lines.push(schema.description);
  if ("default" in schema) lines.push(`@default ${JSON.stringify(schema.default)}`);
  return lines;
}

export function printType(schema: JsonSchema, options: PrintOptions = {}): string {
  return print(schema, {
    defs: options.defs ?? {},
    indent: options.indent ?? "",
    seen: new Set(),
    named: options.named,
  });
}

interface State {
  defs: Record<string, JsonSchema>;
  indent: string;
  seen: Set<string>;
  named: Map<string, JsonSchema> | undefined;
}

/** Definitions zod names itself (a recursive schema without an id) are printed inline. */
const ANONYMOUS = /^__schema\d+$/;

function print(schema: JsonSchema, state: State): string {
  if (schema === true) return "unknown";
  if (schema === false) return "never";
  if (typeof schema[TS_TYPE] === "string") return schema[TS_TYPE] as string;
  if (typeof schema.$ref === "string") return printRef(schema.$ref, state);
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map((value) => JSON.stringify(value)));
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    if (isJsonShape(schema)) return "JsonValue";
    const members = (schema.anyOf ?? schema.oneOf) as JsonSchema[];
    return union(members.map((member) => print(member, state)));
  }
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as JsonSchema[]).map((part) => print(part, state)).filter((t) => t !== "unknown");
    return parts.length === 0 ? "unknown" : parts.map(parenthesize).join(" & ");
  }
  if (Array.isArray(schema.type)) {
    return union((schema.type as string[]).map((type) => print({ ...schema, type }, state)));
  }
  switch (schema.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const items = schema.items === undefined ? "unknown" : print(schema.items as JsonSchema, state);
      return `${parenthesize(items)}[]`;
    }
    case "object":
      return printObject(schema, state);
    default:
      return "unknown";
  }
}

function printRef(ref: string, state: State): string {
  const name = ref.startsWith("#/$defs/") ? ref.slice("#/$defs/".length) : undefined;
  const target = name === undefined ? undefined : state.defs[name];
  if (name === undefined || target === undefined || state.seen.has(name)) return "unknown";
  if (isObject(target) && isJsonShape(target)) return "JsonValue";
  if (state.named && !ANONYMOUS.test(name)) {
    state.named.set(name, target);
    return name;
  }
  state.seen.add(name);
  try {
    return print(target, state);
  } finally {
    state.seen.delete(name);
  }
}

function printObject(schema: SchemaObject, state: State): string {
  const properties = propertiesOf(schema);
  const extra = schema.additionalProperties;
  const rest = isObject(extra) || extra === true ? print(extra as JsonSchema, state) : undefined;
  if (properties.length === 0) {
    if (rest !== undefined) return `Record<string, ${rest}>`;
    return extra === false ? "Record<string, never>" : "Record<string, unknown>";
  }
  const inner = `${state.indent}  `;
  const required = requiredKeys(schema);
  const lines = properties.map(([key, value]) => {
    const type = print(value, { ...state, indent: inner });
    const optional = required.has(key) ? "" : "?";
    return `${jsdoc(propertyDoc(value), inner)}${inner}${propertyKey(key)}${optional}: ${type};`;
  });
  if (rest !== undefined)
    lines.push(`${inner}[key: string]: ${rest === "unknown" ? "unknown" : `${rest} | undefined`};`);
  return `{\n${lines.join("\n")}\n${state.indent}}`;
}

function union(members: string[]): string {
  const unique = [...new Set(members)];
  if (unique.includes("unknown")) return "unknown";
  return unique.length === 0 ? "never" : unique.map(parenthesize).join(" | ");
}

/** Wraps a union or intersection so it can stand before `[]` or inside another union. */
function parenthesize(type: string): string {
  if (type.startsWith("{")) return type;
  return /[|&]/.test(type) && !/^[A-Za-z_$][\w$]*<.*>$/.test(type) ? `(${type})` : type;
}
