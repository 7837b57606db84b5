/** The safe expression evaluator: numbers, operators, precedence, functions; nothing else gets through. */
import { describe, expect, it } from "vitest";
import { evaluate, expressionVariables, parseExpression } from "../../server-bridge/engine/expression.ts";

const calc = (source: string, vars: Record<string, number> = {}) =>
  evaluate(parseExpression(source), (name) => {
    const value = vars[name];
    if (value === undefined) throw new Error(`no ${name}`);
    return value;
  });

describe("math.expression parser", () => {
  it.each([
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["2 ^ 3 ^ 2", 512],
    ["-2 ^ 2", -4],
    ["2 ^ -1", 0.5],
    ["10 % 4 - 7 / 2", -1.5],
    ["--3", 3],
    [".5e1 + 1.5E-1", 5.15],
    ["min(3, 1, 2) + max(4) + abs(-2)", 7],
    ["round(pi * 100) / 100", 3.14],
    ["atan2(1, 1) * 4 - pi", 0],
    ["hypot(3, 4)", 5],
  ])("%s = %d", (source, value) => {
    expect(calc(source)).toBeCloseTo(value, 10);
  });

  it("reads variables, and lists the ones an expression needs", () => {
    expect(calc("(a + b) / 2", { a: 3, b: 5 })).toBe(4);
    expect([...expressionVariables(parseExpression("x * pi + sin(y) + e + x"))]).toEqual(["x", "y"]);
  });

  it.each([
    ["", /empty/],
    ["1 +", /ends too early/],
    ["(1 + 2", /expected "\)"/],
    ["1 2", /unexpected text after/],
    ["a.b", /unexpected "\."/],
    ["sqrt(1, 2)", /sqrt takes 1 argument/],
    ['"x" + 1', /unexpected """/],
    ["process.exit()", /unexpected "\."/],
    ["x = 1", /unexpected "="/],
    ["1 / 0", /Division by zero/],
    ["5 % 0", /Modulo by zero/],
    ["constructor(1)", /not a known function/],
    [`${"(".repeat(100)}1${")".repeat(100)}`, /nesting deeper/],
    [`${"1+".repeat(1500)}1`, /longer than 2000/],
  ])("refuses %#: %s", (source, why) => {
    expect(() => calc(source)).toThrow(why);
  });
});
