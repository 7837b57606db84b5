/**
 * What an input accepts: its handle type, its options and bounds. Used when a graph is planned (for
 * values set in `node.data`) and when a value arrives on an edge whose type is only known at run time.
 */
import { type InputSpec, matchesType, type NodeType, typeName } from "../../shared/graph/node-types.ts";
import type { InputProblem } from "./problems.ts";

/** Why `value` does not fit `spec`, or undefined when it fits. */
export function inputProblem(
  spec: Pick<InputSpec, "type" | "options" | "min" | "max">,
  value: unknown,
): string | undefined {
  if (!matchesType(spec.type, value)) return `expects ${article(spec.type)}, got ${typeName(value)}`;
  if (spec.options && !spec.options.includes(value as string)) {
    return `must be one of ${spec.options.map((o) => JSON.stringify(o)).join(", ")}, got ${JSON.stringify(value)}`;
  }
  if (typeof value === "number") {
    if (spec.min !== undefined && value < spec.min) return `must be at least ${spec.min}, got ${value}`;
    if (spec.max !== undefined && value > spec.max) return `must be at most ${spec.max}, got ${value}`;
  }
  return undefined;
}

function article(type: string): string {
  return type === "any"
    ? "a value"
    : type === "json"
      ? "a JSON value"
      : `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

/** A dynamic input's name: an identifier, never `__proto__` (inputs are plain objects). */
export function isInputName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && name !== "__proto__";
}

/** Whether an input is unset: absent, or null where null means "not given" (optional, no default). */
export function isUnset(spec: InputSpec, value: unknown): boolean {
  return (
    value === undefined ||
    (value === null && !spec.required && spec.default === undefined && spec.type !== "json" && spec.type !== "any")
  );
}

/**
 * The values an unconnected node gets from `data` and defaults: declared inputs, then (for a type with
 * dynamic inputs) every other key of `data`. Problems say which input and why; problems.ts words them.
 */
export function literalInputs(
  type: NodeType,
  data: Readonly<Record<string, unknown>>,
  wired: ReadonlySet<string>,
): { values: Record<string, unknown>; problems: InputProblem[] } {
  const values: Record<string, unknown> = {};
  const problems: InputProblem[] = [];
  for (const spec of type.inputs) {
    if (wired.has(spec.name)) continue;
    const given = Object.hasOwn(data, spec.name) ? data[spec.name] : undefined;
    const value = isUnset(spec, given) ? spec.default : given;
    if (value === undefined) {
      if (spec.required) {
        const { name: input, description } = spec;
        problems.push({ kind: "required", input, description, connectable: spec.handle !== false });
      }
      continue;
    }
    const problem = inputProblem(spec, value);
    if (problem) problems.push({ kind: "invalid", input: spec.name, detail: problem });
    else values[spec.name] = value;
  }
  if (type.dynamicInputs) {
    const dynamic = type.dynamicInputs;
    for (const [name, value] of Object.entries(data)) {
      if (!isInputName(name) || wired.has(name) || type.inputs.some((i) => i.name === name) || value === undefined) {
        continue;
      }
      const problem = inputProblem(dynamic, value);
      if (problem) problems.push({ kind: "invalid", input: name, detail: problem });
      else values[name] = value;
    }
  }
  return { values, problems };
}
