/**
 * Executors of the csv and table families (shared/graph/node-catalog-table.ts): rows are records; a
 * cell compares and counts as a number when it is one or reads as one, as in a spreadsheet.
 */
import { FILTER_OPERATORS } from "../../../shared/graph/node-catalog-table.ts";
import { formatCsv, parseCsv } from "../../packs/csv.ts";
import { type Executor, NodeError } from "../types.ts";

const list = (value: unknown) => value as unknown[];
const str = (value: unknown) => value as string;

/** Largest text csv.format produces: a node's output lands in the job record. */
const MAX_TEXT = 5 * 1024 * 1024;

// Each part can match in one way only (no `\d+\.?\d*`, whose two runs of digits split a long cell in
// quadratically many ways before failing): a hostile cell cannot hold the server up.
const NUMBER_TEXT = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;

/** A cell as a number: a finite number, or text that reads as one; undefined otherwise. */
export function cellNumber(cell: unknown): number | undefined {
  if (typeof cell === "number") return Number.isFinite(cell) ? cell : undefined;
  if (typeof cell !== "string" || cell.length > 400) return undefined;
  const text = cell.trim();
  if (!NUMBER_TEXT.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** A sum as a spreadsheet shows it: 0.1 + 0.2 is 0.3, not 0.30000000000000004 (15 significant digits). */
const decimal = (n: number) => Number(n.toPrecision(15));

const isEmpty = (cell: unknown) => cell === undefined || cell === null || cell === "";

const cellText = (cell: unknown) => (typeof cell === "string" ? cell : isEmpty(cell) ? "" : JSON.stringify(cell));

/** The rows as records; a row that is not one fails, naming it. */
function records(node: string, value: unknown): Record<string, unknown>[] {
  const rows = list(value);
  const bad = rows.findIndex((row) => row === null || typeof row !== "object" || Array.isArray(row));
  if (bad >= 0) {
    throw new NodeError(`${node}: row ${bad} is not a record (an object keyed by column), as Parse CSV gives them.`);
  }
  return rows as Record<string, unknown>[];
}

/**
 * The column, when some row has it: a name no row has (a typo, another case) fails, listing the ones
 * there are, instead of quietly reading every cell as empty. No rows: nothing to check.
 */
function requireColumn(node: string, rows: readonly Record<string, unknown>[], column: string): string {
  if (rows.length === 0 || rows.some((row) => Object.hasOwn(row, column))) return column;
  const names = [...new Set(rows.slice(0, 100).flatMap((row) => Object.keys(row)))];
  const near = names.find((name) => name.toLowerCase() === column.trim().toLowerCase());
  const listed = names.length > 20 ? `${names.slice(0, 20).join(", ")}, …` : names.join(", ");
  throw new NodeError(
    `${node}: no row has a column "${column}"${near ? `; did you mean "${near}"?` : "."} The columns: ${listed}.`,
  );
}

const cellOf = (row: Record<string, unknown>, column: string) => (Object.hasOwn(row, column) ? row[column] : undefined);

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** Orders two cells: numbers by value, else text (numbers inside by value, case aside). */
function compareCells(a: unknown, b: unknown): number {
  const [x, y] = [cellNumber(a), cellNumber(b)];
  if (x !== undefined && y !== undefined) return x - y;
  return collator.compare(cellText(a), cellText(b));
}

type Operator = (typeof FILTER_OPERATORS)[number];

const TESTS: Record<Operator, (cell: unknown, value: unknown) => boolean> = {
  "==": (cell, value) => {
    const [x, y] = [cellNumber(cell), cellNumber(value)];
    return x !== undefined && y !== undefined ? x === y : cellText(cell) === cellText(value);
  },
  "!=": (cell, value) => !TESTS["=="](cell, value),
  "<": (cell, value) => !isEmpty(cell) && compareCells(cell, value) < 0,
  "<=": (cell, value) => !isEmpty(cell) && compareCells(cell, value) <= 0,
  ">": (cell, value) => !isEmpty(cell) && compareCells(cell, value) > 0,
  ">=": (cell, value) => !isEmpty(cell) && compareCells(cell, value) >= 0,
  contains: (cell, value) => cellText(cell).toLowerCase().includes(cellText(value).toLowerCase()),
  "is empty": (cell) => isEmpty(cell),
  "is not empty": (cell) => !isEmpty(cell),
};

export const tableExecutors: Record<string, Executor> = {
  // The csv pack's own functions (papaparse), as an action's `csv.parse` and `csv.unparse` run them.
  "csv.parse": (inputs) => {
    const delimiter = str(inputs.delimiter);
    const read = parseCsv.run({
      text: str(inputs.text),
      header: inputs.header as boolean,
      dynamicTyping: inputs.typed as boolean,
      skipEmptyLines: true,
      ...(delimiter ? { delimiter } : {}),
    }) as {
      data: unknown[];
      fields: string[] | null;
      errors: { type: string; message: string; index: number | null }[];
    };
    // A short or long line, or a single column (no separator to guess), still reads: only quotes fail.
    const broken = read.errors.find((e) => e.type === "Quotes");
    if (broken) {
      const line =
        broken.index === null ? "" : ` on line ${str(inputs.text).slice(0, broken.index).split("\n").length}`;
      throw new NodeError(
        `csv.parse: ${broken.message}${line}. Close the quote, or double a quote inside a cell ("").`,
      );
    }
    return { output: read.data, columns: read.fields ?? [] };
  },
  "csv.format": (inputs) => {
    const rows = list(inputs.rows);
    const bad = rows.findIndex((row) => row === null || typeof row !== "object");
    if (bad >= 0) throw new NodeError(`csv.format: row ${bad} is not an object or a list of cells.`);
    const columns = inputs.columns === undefined || inputs.columns === null ? undefined : list(inputs.columns);
    if (columns?.some((c) => typeof c !== "string")) throw new NodeError("csv.format: columns must be names (text).");
    const text = formatCsv.run({
      rows,
      header: true,
      delimiter: str(inputs.delimiter) || ",",
      ...(columns ? { columns } : {}),
    }) as string;
    if (text.length > MAX_TEXT)
      throw new NodeError("csv.format: the CSV text is larger than 5 MiB.", "result_too_large");
    return { output: text };
  },

  "table.filter": (inputs) => {
    const test = TESTS[inputs.operator as Operator];
    if (!test) throw new NodeError(`table.filter: unknown operator; use one of ${FILTER_OPERATORS.join(", ")}.`);
    const rows = records("table.filter", inputs.rows);
    const column = requireColumn("table.filter", rows, str(inputs.column));
    return { output: rows.filter((row) => test(cellOf(row, column), inputs.value)) };
  },
  "table.sort": (inputs) => {
    const rows = records("table.sort", inputs.rows);
    const column = requireColumn("table.sort", rows, str(inputs.column));
    const sign = inputs.descending === true ? -1 : 1;
    const sorted = [...rows].sort((a, b) => {
      const [x, y] = [cellOf(a, column), cellOf(b, column)];
      // Empty cells last, whichever way.
      if (isEmpty(x) || isEmpty(y)) return Number(isEmpty(x)) - Number(isEmpty(y));
      return sign * compareCells(x, y);
    });
    return { output: sorted };
  },
  "table.column": (inputs) => {
    const rows = records("table.column", inputs.rows);
    const column = requireColumn("table.column", rows, str(inputs.column));
    return { output: rows.map((row) => cellOf(row, column) ?? null) };
  },
  "table.stats": (inputs) => {
    const column = str(inputs.column);
    let cells = list(inputs.rows);
    const record = cells.find((cell) => cell !== null && typeof cell === "object" && !Array.isArray(cell));
    if (column === "" && record) {
      const names = Object.keys(record).slice(0, 20).join(", ");
      throw new NodeError(`table.stats: the rows are records; name the column to total (${names}).`);
    }
    if (column !== "") {
      const rows = records("table.stats", inputs.rows);
      requireColumn("table.stats", rows, column);
      cells = rows.map((row) => cellOf(row, column));
    }
    const numbers: number[] = [];
    cells.forEach((cell, index) => {
      if (isEmpty(cell)) return;
      const n = cellNumber(cell);
      const where = column === "" ? `item ${index}` : `row ${index}'s ${column}`;
      if (n === undefined) {
        const shown = JSON.stringify(cell) ?? String(cell);
        throw new NodeError(
          `table.stats: ${where} is ${shown.length > 60 ? `${shown.slice(0, 59)}…` : shown}, not a number.`,
        );
      }
      numbers.push(n);
    });
    const sum = numbers.reduce((total, n) => total + n, 0);
    const some = numbers.length > 0;
    return {
      count: numbers.length,
      sum: decimal(sum),
      mean: some ? decimal(sum / numbers.length) : null,
      // A loop, not Math.min(...numbers): a long column would overflow the call's arguments.
      min: some ? numbers.reduce((a, b) => Math.min(a, b)) : null,
      max: some ? numbers.reduce((a, b) => Math.max(a, b)) : null,
    };
  },
};
