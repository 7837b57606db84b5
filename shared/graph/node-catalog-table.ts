/**
 * The node types of tabular data (node-catalog.ts lists them with the others): CSV text to rows and
 * back, and what people do with rows without code: keep some, order them, take a column, total one.
 * Rows are a list of records (objects keyed by column, as Parse CSV gives them); a cell that is a
 * number, or text that reads as one ("4.5"), compares and counts as that number; a column no row has
 * fails, naming the ones there are.
 */
import { input, out, req } from "./node-catalog-parts.ts";
import type { NodeType } from "./node-types.ts";

const rows = input("rows", "list", "The rows: records keyed by column (as Parse CSV gives them)", req);
const column = input("column", "string", "The column's name (as on the header line; a name no row has fails)", req);

export const FILTER_OPERATORS = ["==", "!=", "<", "<=", ">", ">=", "contains", "is empty", "is not empty"] as const;

export const TABLE_NODE_TYPES: readonly NodeType[] = [
  {
    id: "csv.parse",
    title: "Parse CSV",
    description:
      "Parses CSV text (a CSV asset's text, from Load asset) into rows: with header on, one object per line keyed by the names on the first line; off, a list of cells per line. Cells stay text unless typed is on (numbers and true/false read as such, empty cells as null). Empty lines are skipped; a quote left open fails.",
    inputs: [
      input("text", "string", "CSV text", req),
      input("header", "boolean", "The first line names the columns", { default: true }),
      input("typed", "boolean", "Read numbers and true/false as such, not as text", { default: false }),
      input("delimiter", "string", "What separates cells; guessed (comma, semicolon, tab, |) when empty", {
        default: "",
      }),
    ],
    outputs: [out("list", "The rows"), out("list", "The column names (header on; empty otherwise)", "columns")],
  },
  {
    id: "csv.format",
    title: "Write CSV",
    description:
      "Writes rows as CSV text: objects (their keys on the header line) or lists of cells. Keep it as a file with Save asset.",
    inputs: [
      input("rows", "list", "The rows: objects, or lists of cells", req),
      input("columns", "list", "Which columns of objects, in this order; every key when unset"),
      input("delimiter", "string", "What separates cells", { default: "," }),
    ],
    outputs: [out("string", "The CSV text")],
  },
  {
    id: "table.filter",
    title: "Filter rows",
    description:
      "Keeps the rows whose cell in a column holds against a value: ==, !=, <, <=, >, >= (as numbers when both read as numbers, else as text), contains (text, case aside), is empty, is not empty.",
    inputs: [
      rows,
      column,
      input("operator", "string", "The test", { default: "==", options: [...FILTER_OPERATORS] }),
      input("value", "any", "What the cell is compared with (not used by is empty / is not empty)", { default: "" }),
    ],
    outputs: [out("list", "The rows kept, in their order")],
  },
  {
    id: "table.sort",
    title: "Sort rows",
    description:
      "Orders rows by a column: numbers by value, text alphabetically (numbers inside it by value, case aside); rows with an empty cell go last. Rows with equal cells keep their order.",
    inputs: [rows, column, input("descending", "boolean", "Largest (or last) first", { default: false })],
    outputs: [out("list", "The rows, ordered")],
  },
  {
    id: "table.column",
    title: "Get column",
    description: "The values of one column, a list with one item per row (null where a row has none).",
    inputs: [rows, column],
    outputs: [out("list", "The column's values")],
  },
  {
    id: "table.stats",
    title: "Column statistics",
    description:
      "Totals a column of numbers: how many, their sum, mean, smallest and largest. Empty cells are skipped; a cell that is not a number fails, naming its row. With no column, the rows are the numbers themselves. Mean, min and max are null when there is no number.",
    inputs: [
      input("rows", "list", "The rows (or a list of numbers)", req),
      input("column", "string", "The column's name; empty when the rows are numbers", { default: "" }),
    ],
    outputs: [
      out("number", "How many numbers", "count"),
      out("number", "Their sum", "sum"),
      out("number", "Their mean", "mean"),
      out("number", "The smallest", "min"),
      out("number", "The largest", "max"),
    ],
  },
];
