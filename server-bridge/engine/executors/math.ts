/** Executors of the math family. Every result must be a finite number, or the node fails saying why. */
import { evaluate, expressionVariables, parseExpression } from "../expression.ts";
import { type Executor, NodeError, type NodeInputs } from "../types.ts";

const num = (value: unknown) => value as number;

function finite(id: string, value: number): { output: number } {
  if (!Number.isFinite(value)) {
    throw new NodeError(`${id}: the result is not a finite number (${value}); check the operands.`);
  }
  return { output: value };
}

const binary =
  (id: string, op: (a: number, b: number) => number): Executor =>
  (inputs) =>
    finite(id, op(num(inputs.a), num(inputs.b)));

const COMPARE: Readonly<Record<string, (a: number, b: number) => boolean>> = {
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
  "==": (a, b) => a === b,
  "!=": (a, b) => a !== b,
};

function expression(inputs: NodeInputs): { output: number } {
  const tree = parseExpression(inputs.expression as string);
  const missing = [...expressionVariables(tree)].filter(
    (name) => !Object.hasOwn(inputs, name) || inputs[name] === undefined,
  );
  if (missing.length > 0) {
    throw new NodeError(
      `math.expression: no value for ${missing.map((n) => `"${n}"`).join(", ")}. Connect a node to an input of that name or fill it in.`,
    );
  }
  return finite(
    "math.expression",
    evaluate(tree, (name) => {
      const value = Object.hasOwn(inputs, name) ? inputs[name] : undefined;
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw new NodeError(
          `math.expression: variable "${name}" must be a finite number, got ${JSON.stringify(value)}.`,
        );
      }
      return value;
    }),
  );
}

export const mathExecutors: Record<string, Executor> = {
  "math.add": binary("math.add", (a, b) => a + b),
  "math.subtract": binary("math.subtract", (a, b) => a - b),
  "math.multiply": binary("math.multiply", (a, b) => a * b),
  "math.divide": binary("math.divide", (a, b) => {
    if (b === 0) throw new NodeError("math.divide: b is 0; division by zero has no result.");
    return a / b;
  }),
  "math.modulo": binary("math.modulo", (a, b) => {
    if (b === 0) throw new NodeError("math.modulo: b is 0; modulo by zero has no result.");
    return a % b;
  }),
  "math.power": binary("math.power", (a, b) => a ** b),
  "math.compare": (inputs) => {
    const compare = COMPARE[inputs.operator as string];
    if (!compare) throw new NodeError(`math.compare: unknown operator; use one of ${Object.keys(COMPARE).join(" ")}.`);
    return { output: compare(num(inputs.a), num(inputs.b)) };
  },
  "math.clamp": (inputs) => {
    const [value, min, max] = [num(inputs.value), num(inputs.min), num(inputs.max)];
    if (min > max) throw new NodeError(`math.clamp: min (${min}) is greater than max (${max}).`);
    return { output: Math.min(max, Math.max(min, value)) };
  },
  "math.expression": expression,
};
