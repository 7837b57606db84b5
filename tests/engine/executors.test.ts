/**
 * Every node type with good and bad input, through `runNode` (the same input checks a graph gets,
 * then the executor). Pure node types must never call `invoke`; the ones with effects are driven
 * through a real server in capabilities.test.ts.
 */
import { describe, expect, it } from "vitest";
import { cellNumber } from "../../server-bridge/engine/executors/table.ts";
import { runNode } from "../../server-bridge/engine/run-node.ts";
import { NODE_TYPES } from "../../shared/graph/node-types.ts";
import { CodedError } from "../../shared/protocol/errors.ts";

const invoked: string[] = [];
const options = () => ({
  signal: new AbortController().signal,
  timeoutMs: 10_000,
  invoke: async (name: string) => {
    invoked.push(name);
    return { ok: false as const, error: { code: "permission_denied" as const, message: "no effects in this test" } };
  },
});

const run = (type: string, inputs: Record<string, unknown>) => runNode(type, inputs, options());

async function failure(type: string, inputs: Record<string, unknown>) {
  try {
    await run(type, inputs);
  } catch (err) {
    if (err instanceof CodedError) return err.payload;
    throw err;
  }
  throw new Error(`${type} ran with bad input ${JSON.stringify(inputs)}`);
}

type Case = [type: string, good: Record<string, unknown>, output: unknown, bad: Record<string, unknown>, why: RegExp];

const CASES: Case[] = [
  ["constant.string", { value: "hi" }, "hi", { value: 1 }, /value.*expects a string, got number/],
  ["constant.number", { value: 2.5 }, 2.5, { value: "2" }, /expects a number, got string/],
  ["constant.boolean", { value: true }, true, { value: "yes" }, /expects a boolean/],
  ["constant.json", { value: { a: [1, null] } }, { a: [1, null] }, { value: undefined, x: 1 }, /^$/],
  [
    "text.template",
    { template: "Hi {{name}}, {{user.city}} #{{n}}", name: "Ada", user: { city: "Oslo" }, n: 3 },
    "Hi Ada, Oslo #3",
    { template: "Hi {{name}}" },
    /slot \{\{name\}\} has no value/,
  ],
  ["text.concat", { a: "x", b: "y", separator: "-" }, "x-y", { a: 1 }, /input "a" expects a string/],
  [
    "text.split",
    { text: " a, b,,c ", separator: ",", trim: true },
    ["a", "b", "c"],
    { separator: "," },
    /"text" is required/,
  ],
  [
    "text.replace",
    { text: "a.a.a", search: ".", replacement: "$&" },
    "a$&a$&a",
    { text: "abc", search: "" },
    /search is empty/,
  ],
  ["text.length", { text: "héllo👋" }, 6, { text: ["x"] }, /expects a string, got list/],
  ["math.add", { a: 2, b: 3 }, 5, { a: "2", b: 3 }, /expects a number/],
  ["math.subtract", { a: 2, b: 3 }, -1, { a: Number.POSITIVE_INFINITY }, /got non-finite number/],
  ["math.multiply", { a: 4, b: 2.5 }, 10, { a: 1e308, b: 10 }, /not a finite number/],
  ["math.divide", { a: 1, b: 4 }, 0.25, { a: 1, b: 0 }, /division by zero/],
  ["math.modulo", { a: -7, b: 3 }, -1, { a: 1, b: 0 }, /modulo by zero/],
  ["math.power", { a: 2, b: 10 }, 1024, { a: -8, b: 1 / 3 }, /not a finite number/],
  ["math.compare", { a: 2, b: 2, operator: "<=" }, true, { a: 1, b: 2, operator: "=>" }, /must be one of/],
  ["math.clamp", { value: 7, min: 0, max: 5 }, 5, { value: 1, min: 3, max: 2 }, /min \(3\) is greater than max \(2\)/],
  [
    "math.expression",
    { expression: "max(a, 2) ^ 2 - -b % 4 + pi * 0", a: 3, b: 6 },
    11,
    { expression: "a + 1" },
    /no value for "a"/,
  ],
  ["json.parse", { text: '{"a":[1,2]}' }, { a: [1, 2] }, { text: "{a:1}" }, /not valid JSON/],
  ["json.stringify", { value: { a: 1 }, indent: 0 }, '{"a":1}', { value: 1, indent: 11 }, /at most 10/],
  [
    "json.get",
    { object: { a: { "b c": [0, { d: 4 }] } }, path: 'a["b c"][1].d' },
    4,
    { object: { a: 1 }, path: "a.b" },
    /nothing at path "a\.b"/,
  ],
  [
    "json.set",
    { object: { a: { b: 1 } }, path: "a.c[0]", value: "x" },
    { a: { b: 1, c: ["x"] } },
    { object: { a: [] }, path: "a.b", value: 1 },
    /is a list/,
  ],
  [
    "csv.parse",
    { text: 'name,n\nAda,1\n"Lovelace, A",2\n' },
    [
      { name: "Ada", n: "1" },
      { name: "Lovelace, A", n: "2" },
    ],
    { text: 'name\n"open' },
    /csv\.parse: Quoted field unterminated on line 2\. Close the quote/,
  ],
  [
    "csv.format",
    { rows: [{ name: "Lovelace, A", n: 2 }, { name: 'say "hi"' }] },
    'name,n\r\n"Lovelace, A",2\r\n"say ""hi""",',
    { rows: [{ a: 1 }, 3] },
    /row 1 is not an object or a list of cells/,
  ],
  [
    "table.filter",
    { rows: [{ n: "3" }, { n: "12" }, { n: "" }], column: "n", operator: ">", value: 5 },
    [{ n: "12" }],
    { rows: [{ n: 1 }, [1]], column: "n" },
    /table\.filter: row 1 is not a record/,
  ],
  [
    "table.sort",
    { rows: [{ n: "10" }, { n: "9" }, {}, { n: 2 }], column: "n" },
    [{ n: 2 }, { n: "9" }, { n: "10" }, {}],
    { rows: [{ n: 1 }], column: "n", descending: "yes" },
    /expects a boolean/,
  ],
  [
    "table.column",
    { rows: [{ a: 1 }, { b: 2 }], column: "a" },
    [1, null],
    { rows: [{ a: 1 }] },
    /"column" is required/,
  ],
  [
    "table.stats",
    { rows: [{ p: "3" }, { p: 4.5 }, { p: "" }, {}], column: "p" },
    undefined,
    { rows: [{ p: "3" }, { p: "n/a" }], column: "p" },
    /table\.stats: row 1's p is "n\/a", not a number\./,
  ],
  ["list.length", { list: [1, 2, 3] }, 3, { list: "abc" }, /expects a list, got string/],
  [
    "list.join",
    { list: ["a", 1, { b: 2 }], separator: "|" },
    'a|1|{"b":2}',
    { list: ["a"], separator: 3 },
    /expects a string/,
  ],
  ["list.slice", { list: [1, 2, 3, 4], start: 1, end: -1 }, [2, 3], { list: [1], start: "1" }, /expects a number/],
  [
    "list.map_template",
    { list: [{ t: "x" }, { t: "y" }], template: "{{index}}:{{item.t}}" },
    ["0:x", "1:y"],
    { list: [1], template: "{{other}}" },
    /Only \{\{item\}\}/,
  ],
  ["workflow.input", { name: "x", default: 5 }, 5, { name: "x" }, /has no value: pass inputs/],
  ["workflow.output", { name: "result", value: [1] }, undefined, { name: "result" }, /"value" is required/],
  ["control.delay", { ms: 1, value: "v" }, "v", { ms: 60_001 }, /at most 60000/],
];

describe("every pure node type, good and bad input", () => {
  it("covers every node type without effects", () => {
    const covered = new Set(CASES.map((c) => c[0]));
    const pure = NODE_TYPES.filter((t) => !t.effects?.length && !t.note && t.id !== "code.run").map((t) => t.id);
    expect(pure.filter((id) => !covered.has(id))).toEqual([]);
  });

  it.each(CASES)("%s", async (type, good, output, bad, why) => {
    const outputs = await run(type, good);
    if (type === "workflow.output") expect(outputs).toEqual({ value: [1] });
    else if (type === "csv.parse") expect(outputs).toEqual({ output, columns: ["name", "n"] });
    else if (type === "table.stats") expect(outputs).toEqual({ count: 2, sum: 7.5, mean: 3.75, min: 3, max: 4.5 });
    else expect(outputs).toEqual({ output });
    if (why.source === "^$") {
      // A constant.json takes any value; an unset one gives its default, null.
      expect(await run(type, bad)).toEqual({ output: null });
    } else {
      const error = await failure(type, bad);
      expect(error.message).toMatch(why);
      expect(error.message).not.toMatch(/at .*\.ts|node_modules|\/work\//);
    }
    expect(invoked).toEqual([]);
  });

  it("reads CSV as its people write it: other separators, no header, typed cells, ragged lines", async () => {
    expect(await run("csv.parse", { text: "a;b\n1;x\n\n2;y" })).toEqual({
      output: [
        { a: "1", b: "x" },
        { a: "2", b: "y" },
      ],
      columns: ["a", "b"],
    });
    expect(await run("csv.parse", { text: "1,true,\n2.5,no,x", header: false, typed: true })).toEqual({
      output: [
        [1, true, null],
        [2.5, "no", "x"],
      ],
      columns: [],
    });
    // A short line still reads (its missing cells absent); a single column needs no separator.
    expect((await run("csv.parse", { text: "a,b\n1" })).output).toEqual([{ a: "1" }]);
    expect((await run("csv.parse", { text: "word\ntea\ncake" })).output).toEqual([{ word: "tea" }, { word: "cake" }]);
    expect((await run("csv.parse", { text: "a|b\n1|2", delimiter: "|" })).output).toEqual([{ a: "1", b: "2" }]);
    // Written back: chosen columns in their order, another separator, lists of cells.
    expect(await run("csv.format", { rows: [{ a: 1, b: 2, c: 3 }], columns: ["c", "a"], delimiter: ";" })).toEqual({
      output: "c;a\r\n3;1",
    });
    expect(
      await run("csv.format", {
        rows: [
          ["x", 1],
          ["y", 2],
        ],
      }),
    ).toEqual({ output: "x,1\r\ny,2" });
    expect((await failure("csv.format", { rows: [{ a: 1 }], columns: ["a", 2] })).message).toMatch(
      /columns must be names/,
    );
  });

  it("works on rows as a spreadsheet does: numbers as numbers, text as text, empty cells apart", async () => {
    const rows = [
      { item: "Tea", price: "3", kind: "drink" },
      { item: "cake", price: "12", kind: "" },
      { item: "Coffee", price: "2.5", kind: "drink" },
      { item: "bun", price: "", kind: "food" },
    ];
    const filter = async (column: string, operator: string, value?: unknown) =>
      (
        (await run("table.filter", { rows, column, operator, ...(value === undefined ? {} : { value }) })).output as {
          item: string;
        }[]
      ).map((r) => r.item);
    // Numbers compare by value ("12" > "3"), never as text; an empty cell is no number.
    expect(await filter("price", ">", "2.9")).toEqual(["Tea", "cake"]);
    expect(await filter("price", "<=", 3)).toEqual(["Tea", "Coffee"]);
    expect(await filter("price", "==", "3.0")).toEqual(["Tea"]);
    expect(await filter("kind", "==", "drink")).toEqual(["Tea", "Coffee"]);
    expect(await filter("kind", "!=", "drink")).toEqual(["cake", "bun"]);
    expect(await filter("item", "contains", "CO")).toEqual(["Coffee"]);
    expect(await filter("kind", "is empty")).toEqual(["cake"]);
    expect(await filter("price", "is not empty")).toEqual(["Tea", "cake", "Coffee"]);
    // A column no row has (a typo, another case) fails, naming the ones there are, rather than reading
    // every cell as empty; with no rows there is nothing to check.
    expect((await failure("table.filter", { rows, column: "Price", operator: "==" })).message).toContain(
      'table.filter: no row has a column "Price"; did you mean "price"? The columns: item, price, kind.',
    );
    for (const type of ["table.sort", "table.column", "table.stats"]) {
      expect((await failure(type, { rows, column: "colour" })).message).toContain(
        `${type}: no row has a column "colour". The columns: item, price, kind.`,
      );
    }
    expect((await run("table.filter", { rows: [], column: "colour", operator: "==" })).output).toEqual([]);
    // A column some rows lack: those rows' cells are empty.
    expect(await filter("kind", "is empty")).toEqual(["cake"]);
    expect((await failure("table.filter", { rows, column: "price", operator: "~" })).message).toMatch(/must be one of/);

    const sorted = async (column: string, descending = false) =>
      ((await run("table.sort", { rows, column, descending })).output as { item: string }[]).map((r) => r.item);
    expect(await sorted("price")).toEqual(["Coffee", "Tea", "cake", "bun"]);
    expect(await sorted("price", true)).toEqual(["cake", "Tea", "Coffee", "bun"]);
    // Text alphabetically, case aside, numbers inside by value.
    expect(await sorted("item")).toEqual(["bun", "cake", "Coffee", "Tea"]);
    const files = [{ f: "file10" }, { f: "File2" }, { f: "file1" }];
    expect((await run("table.sort", { rows: files, column: "f" })).output).toEqual([
      { f: "file1" },
      { f: "File2" },
      { f: "file10" },
    ]);

    expect(await run("table.stats", { rows: [1, 2, "3", null] })).toEqual({
      count: 3,
      sum: 6,
      mean: 2,
      min: 1,
      max: 3,
    });
    expect(await run("table.stats", { rows: [], column: "" })).toEqual({
      count: 0,
      sum: 0,
      mean: null,
      min: null,
      max: null,
    });
    const long = Array.from({ length: 200_000 }, (_, i) => i);
    expect(await run("table.stats", { rows: long })).toMatchObject({ count: 200_000, min: 0, max: 199_999 });
    expect((await failure("table.stats", { rows: [1, "x"] })).message).toMatch(/item 1 is "x", not a number/);
    expect((await failure("table.stats", { rows })).message).toContain(
      "table.stats: the rows are records; name the column to total (item, price, kind).",
    );
    // A long run of digits that is no number is none (the pattern cannot backtrack, and a cell past 400
    // characters is not tried), nor is one too large for a number.
    expect((await failure("table.stats", { rows: [`${"1".repeat(300)}x`] })).message).toMatch(
      /item 0 is "1{50,}…, not a number/,
    );
    expect([`${"9".repeat(399)}`, `${"1".repeat(500)}`, "1e5", " -.5 ", "1.", "."].map(cellNumber)).toEqual([
      undefined,
      undefined,
      100_000,
      -0.5,
      1,
      undefined,
    ]);
    // Sums as a spreadsheet shows them; a long cell is cut in the message.
    expect(await run("table.stats", { rows: ["0.1", "0.2"] })).toMatchObject({ sum: 0.3, mean: 0.15 });
    expect((await failure("table.stats", { rows: ["y".repeat(500)] })).message).toMatch(/item 0 is "y{58}…, not/);
    expect(await run("csv.format", { rows: [["a", "b"]], delimiter: "" })).toEqual({ output: "a,b" });
    // A row's own keys only: never a prototype's.
    expect((await failure("table.column", { rows: [{ a: 1 }], column: "constructor" })).message).toMatch(
      /no row has a column "constructor"/,
    );
    expect((await run("table.column", { rows: [{ a: 1 }, {}], column: "a" })).output).toEqual([1, null]);
  });

  it("refuses an unknown node type with a near name", async () => {
    const error = await failure("text.concatt", {});
    expect(error).toMatchObject({ code: "capability_failed", suggestions: expect.arrayContaining(["text.concat"]) });
  });

  it("never reads a prototype property as a variable or a slot", async () => {
    expect((await failure("math.expression", { expression: "__proto__ + constructor" })).message).toMatch(
      /no value for "__proto__", "constructor"/,
    );
    expect((await failure("text.template", { template: "{{constructor}}" })).message).toMatch(/has no value/);
    expect((await failure("json.get", { object: {}, path: "constructor" })).message).toMatch(/nothing at path/);
  });

  it("gives bad inputs as invalid_tool_arguments with one issue per input", async () => {
    const error = await failure("math.clamp", { value: "x", min: "y" });
    expect(error.code).toBe("invalid_tool_arguments");
    expect(error.issues).toEqual([expect.stringMatching(/^inputs\.value /), expect.stringMatching(/^inputs\.min /)]);
  });

  it("code.run answers a coded failure while the server-side sandbox host is absent", async () => {
    const error = await failure("code.run", { code: "(input) => input * 2", input: 21 });
    expect(error.code).toBe("capability_unavailable");
    expect(error.message).toMatch(/QuickJS sandbox/);
    expect(await failure("code.run", { input: 1 })).toMatchObject({ code: "invalid_tool_arguments" });
  });

  it("stops a delay at once when the run ends, and at its deadline", async () => {
    const controller = new AbortController();
    const pending = runNode("control.delay", { ms: 60_000 }, { ...options(), signal: controller.signal });
    controller.abort("ended");
    await expect(pending).rejects.toMatchObject({ payload: { code: "run_ended" } });
    await expect(runNode("control.delay", { ms: 60_000 }, { ...options(), timeoutMs: 20 })).rejects.toMatchObject({
      payload: { code: "timeout" },
    });
  });
});
