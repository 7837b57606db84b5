/** The `csv` pack: papaparse's parse and unparse over plain strings and rows. */
import Papa from "papaparse";
import { z } from "zod";
import { defineExport, definePack } from "./types.ts";

const MAX_TEXT = 20 * 1024 * 1024;

export const parseCsv = defineExport({
  name: "parse",
  description: "Parse CSV text into rows: objects keyed by the header row (header: true, the default) or arrays.",
  signature:
    "csv.parse(text: string, { header?: boolean, delimiter?: string, dynamicTyping?: boolean, skipEmptyLines?: boolean })",
  positional: ["text"],
  input: z.object({
    text: z.string().max(MAX_TEXT),
    header: z.boolean().default(true),
    delimiter: z.string().max(4).optional(),
    dynamicTyping: z.boolean().default(false),
    skipEmptyLines: z.boolean().default(true),
  }),
  run(args) {
    const out = Papa.parse<unknown>(args.text, {
      header: args.header,
      dynamicTyping: args.dynamicTyping,
      skipEmptyLines: args.skipEmptyLines,
      ...(args.delimiter !== undefined ? { delimiter: args.delimiter } : {}),
    });
    return {
      data: out.data,
      fields: out.meta.fields ?? null,
      errors: out.errors.map((e) => ({ row: e.row ?? null, type: e.type, message: e.message, index: e.index ?? null })),
    };
  },
});

export const formatCsv = defineExport({
  name: "unparse",
  description: "Turn rows (objects or arrays) into CSV text.",
  signature: "csv.unparse(rows: object[] | any[][], { columns?: string[], delimiter?: string, header?: boolean })",
  positional: ["rows"],
  input: z.object({
    rows: z.array(z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())])).max(1_000_000),
    columns: z.array(z.string()).optional(),
    delimiter: z.string().max(4).optional(),
    header: z.boolean().default(true),
  }),
  run(args) {
    // papaparse reads rows with `in`/`hasOwnProperty`; give it ordinary objects.
    const rows = args.rows.map((row) => (Array.isArray(row) ? row : { ...row }));
    return Papa.unparse(rows as unknown[], {
      header: args.header,
      ...(args.columns ? { columns: args.columns } : {}),
      ...(args.delimiter !== undefined ? { delimiter: args.delimiter } : {}),
    });
  },
});

export const csvPack = definePack({
  name: "csv",
  description: "CSV parsing and writing (papaparse).",
  exports: [parseCsv, formatCsv],
});
