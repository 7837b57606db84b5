/**
 * The node types, as data (the shape and the rules are in node-types.ts). Single-output types name
 * their output `output`. Adding a type here needs an executor in server-bridge/engine/executors, or
 * the engine's coverage test fails (a note needs none: it never runs).
 */
import { MEDIA_NODE_TYPES } from "./node-catalog-media.ts";
import { input, out, req } from "./node-catalog-parts.ts";
import { TABLE_NODE_TYPES } from "./node-catalog-table.ts";
import type { HandleType, NodeType } from "./node-types.ts";

const constant = (kind: HandleType, title: string, fallback: unknown): NodeType => ({
  id: `constant.${kind}`,
  title,
  description: `A fixed ${kind === "json" ? "JSON value" : kind}, set in data.value.`,
  inputs: [input("value", kind, "The value this node gives", { default: fallback })],
  outputs: [out(kind, "The value")],
});

const binary = (id: string, title: string, description: string): NodeType => ({
  id,
  title,
  description,
  inputs: [input("a", "number", "Left operand", { default: 0 }), input("b", "number", "Right operand", { default: 0 })],
  outputs: [out("number", "The result")],
});

export const CATALOG: readonly NodeType[] = [
  constant("string", "Text", ""),
  constant("number", "Number", 0),
  constant("boolean", "Boolean", false),
  constant("json", "JSON", null),

  {
    id: "text.template",
    title: "Template",
    description:
      "Fills {{name}} slots in a template. Each slot name is an input: connect an edge to targetHandle <name> or set data.<name>. {{user.name}} reads a path inside input user. Strings are inserted as they are, other values as JSON.",
    inputs: [input("template", "string", "Text with {{name}} slots", req)],
    outputs: [out("string", "The filled text")],
    dynamicInputs: { type: "any", description: "One input per {{name}} slot of the template" },
  },
  {
    id: "text.concat",
    title: "Concatenate",
    description: "Joins two texts, with an optional separator between them.",
    inputs: [
      input("a", "string", "First text", { default: "" }),
      input("b", "string", "Second text", { default: "" }),
      input("separator", "string", "Put between a and b", { default: "" }),
    ],
    outputs: [out("string", "a + separator + b")],
  },
  {
    id: "text.split",
    title: "Split",
    description: "Splits a text into a list of strings at each separator.",
    inputs: [
      input("text", "string", "The text to split", req),
      input("separator", "string", "Where to split; empty splits into characters", { default: "," }),
      input("trim", "boolean", "Trim whitespace around each part and drop empty parts", { default: false }),
    ],
    outputs: [out("list", "The parts")],
  },
  {
    id: "text.replace",
    title: "Replace",
    description: "Replaces occurrences of a search text (plain text, not a pattern).",
    inputs: [
      input("text", "string", "The text to change", req),
      input("search", "string", "The text to find", req),
      input("replacement", "string", "What to put instead", { default: "" }),
      input("all", "boolean", "Replace every occurrence (false: only the first)", { default: true }),
    ],
    outputs: [out("string", "The changed text")],
  },
  {
    id: "text.length",
    title: "Text length",
    description: "The number of characters in a text.",
    inputs: [input("text", "string", "The text", req)],
    outputs: [out("number", "Its length")],
  },

  binary("math.add", "Add", "Adds two numbers: a + b."),
  binary("math.subtract", "Subtract", "Subtracts b from a: a - b."),
  binary("math.multiply", "Multiply", "Multiplies two numbers: a * b."),
  binary("math.divide", "Divide", "a / b; fails when b is 0."),
  binary("math.modulo", "Modulo", "The remainder of a / b (sign of a); fails when b is 0."),
  binary("math.power", "Power", "a raised to the power b; fails when the result is not a finite number."),
  {
    id: "math.compare",
    title: "Compare",
    description: "Compares two numbers with an operator: <, <=, >, >=, ==, !=.",
    inputs: [
      input("a", "number", "Left operand", { default: 0 }),
      input("b", "number", "Right operand", { default: 0 }),
      input("operator", "string", "The comparison", { default: "<", options: ["<", "<=", ">", ">=", "==", "!="] }),
    ],
    outputs: [out("boolean", "Whether a <operator> b holds")],
  },
  {
    id: "math.clamp",
    title: "Clamp",
    description: "Limits a number to the range [min, max]; fails when min > max.",
    inputs: [
      input("value", "number", "The number", req),
      input("min", "number", "Lower bound", { default: 0 }),
      input("max", "number", "Upper bound", { default: 1 }),
    ],
    outputs: [out("number", "The clamped number")],
  },
  {
    id: "math.expression",
    title: "Expression",
    description:
      "Evaluates an arithmetic expression over numbers only: + - * / % ^ (power), parentheses, unary minus, constants pi and e, functions abs, sqrt, cbrt, floor, ceil, round, trunc, sign, exp, log, log2, log10, sin, cos, tan, asin, acos, atan, atan2, min, max, pow, hypot. Every other name is a variable: an input of that name (connect it or set data.<name>).",
    inputs: [input("expression", "string", "For example (a + b) / 2", req)],
    outputs: [out("number", "The value")],
    dynamicInputs: { type: "number", description: "One input per variable of the expression" },
  },

  {
    id: "json.parse",
    title: "Parse JSON",
    description: "Parses JSON text into a value.",
    inputs: [input("text", "string", "JSON text", req)],
    outputs: [out("json", "The parsed value")],
  },
  {
    id: "json.stringify",
    title: "Stringify JSON",
    description: "Writes a value as JSON text.",
    inputs: [
      input("value", "any", "The value", req),
      input("indent", "number", "Spaces of indentation, 0 for one line", { default: 0, min: 0, max: 10 }),
    ],
    outputs: [out("string", "The JSON text")],
  },
  {
    id: "json.get",
    title: "Get by path",
    description:
      'Reads a value at a path such as a.b[0].c or items[2]["key with spaces"]. A missing path gives `default` when one is set, and fails otherwise.',
    inputs: [
      input("object", "json", "The value to read from", req),
      input("path", "string", "Dotted/bracket path; empty reads the whole value", { default: "" }),
      input("default", "any", "Given when the path is missing"),
    ],
    outputs: [out("any", "The value at the path")],
  },
  {
    id: "json.set",
    title: "Set by path",
    description:
      "Returns a copy of a value with the value at a path replaced, creating missing objects (or lists, before an [index]) on the way.",
    inputs: [
      input("object", "json", "The value to change (not modified in place)", { default: {} }),
      input("path", "string", "Dotted/bracket path, e.g. a.b[0]", req),
      input("value", "any", "The value to put there", req),
    ],
    outputs: [out("json", "The changed copy")],
  },

  {
    id: "list.length",
    title: "List length",
    description: "The number of items in a list.",
    inputs: [input("list", "list", "The list", req)],
    outputs: [out("number", "Its length")],
  },
  {
    id: "list.join",
    title: "Join list",
    description: "Joins the items of a list into one text; non-string items are written as JSON.",
    inputs: [
      input("list", "list", "The list", req),
      input("separator", "string", "Put between items", { default: "," }),
    ],
    outputs: [out("string", "The joined text")],
  },
  {
    id: "list.slice",
    title: "Slice list",
    description: "Items from start (inclusive) to end (exclusive); negative indexes count from the end.",
    inputs: [
      input("list", "list", "The list", req),
      input("start", "number", "First index", { default: 0 }),
      input("end", "number", "Index after the last; unset means the end of the list"),
    ],
    outputs: [out("list", "The slice")],
  },
  {
    id: "list.map_template",
    title: "Map template",
    description:
      "Fills a template once per item: {{item}} is the item, {{item.name}} a path inside it, {{index}} its position (from 0).",
    inputs: [
      input("list", "list", "The items", req),
      input("template", "string", "For example: {{index}}. {{item.title}}", req),
    ],
    outputs: [out("list", "One string per item")],
  },

  {
    id: "canvas.note",
    title: "Note",
    description:
      "A note for people reading the workflow: its text shows on the canvas. It has no connections and does not run.",
    inputs: [input("text", "string", "What the note says", { handle: false, default: "" })],
    outputs: [],
    note: true,
  },
  {
    id: "workflow.input",
    title: "Workflow input",
    description:
      "A value the workflow is run with: inputs.<name> of run_workflow / start_workflow, else data.default; fails when neither is given.",
    inputs: [
      input("name", "string", "The input's name", { ...req, handle: false }),
      input("default", "any", "Used when the run passes no value", { handle: false }),
    ],
    outputs: [out("any", "The input's value")],
  },
  {
    id: "workflow.output",
    title: "Workflow output",
    description: "Names a result: the job's outputs.<name> is the value connected here.",
    inputs: [
      input("name", "string", "The output's name", { ...req, handle: false }),
      input("value", "any", "The result", req),
    ],
    outputs: [],
  },

  {
    id: "control.delay",
    title: "Delay",
    description:
      "Waits ms milliseconds (at most 60000), then passes its value on. Stops at once when the job is cancelled.",
    inputs: [
      input("ms", "number", "How long to wait", { default: 1000, min: 0, max: 60_000 }),
      input("value", "any", "Passed on unchanged", { default: null }),
    ],
    outputs: [out("any", "The value, after the wait")],
  },

  {
    id: "memory.save",
    title: "Save memory",
    description: "Saves a text to the user's memory (the save_memory capability, a write: it asks in default mode).",
    inputs: [
      input("content", "string", "What to remember", req),
      input("tags", "list", "Tags (strings)", { default: [] }),
    ],
    outputs: [out("json", "The saved memory: id, content, tags, created_at")],
    effects: [{ capability: "save_memory", category: "write" }],
  },
  {
    id: "memory.search",
    title: "Search memory",
    description: "Full-text search of the user's memory (the search_memories capability, a read).",
    inputs: [
      input("query", "string", "Words to look for", req),
      input("limit", "number", "At most this many results", { default: 10, min: 1, max: 100 }),
    ],
    outputs: [out("list", "Matching memories, best first")],
    effects: [{ capability: "search_memories", category: "read" }],
  },

  {
    id: "code.run",
    title: "Run code",
    description:
      "Runs a short JavaScript function in the server-side QuickJS sandbox, with the same limits as actions and no capability modules: data.code is a function expression such as (input) => input.n * 2, called with the input value; its return value (JSON) is the output.",
    inputs: [
      input("code", "string", "A JavaScript function expression", { ...req, handle: false }),
      input("input", "any", "The argument the function is called with", { default: null }),
      input("timeout_ms", "number", "Deadline for the call", { default: 5000, min: 10, max: 30_000, handle: false }),
    ],
    outputs: [out("any", "The function's return value")],
  },

  ...TABLE_NODE_TYPES,
  ...MEDIA_NODE_TYPES,
];
