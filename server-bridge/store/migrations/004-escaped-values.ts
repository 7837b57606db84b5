/**
 * Stored workflow values move to the boundary encoding (shared/protocol/values.ts). Before, graphs and
 * job values were plain JSON whose single-key `{$asset: id}` / `{$bytes: base64}` objects were read
 * back as references, so data that merely looked like one became one. Each stored value is read the
 * old way once (what was a marker stays a reference, every other `$` key is data) and written in the
 * escaped form that every later read uses.
 */
import type Database from "better-sqlite3";
import { AssetRef, base64ToBytes, MAX_DEPTH, toJsonText } from "../../../shared/protocol/values.ts";

/** The old reading: single-key markers revived, everything else copied as data. */
function legacyValue(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => legacyValue(item, depth + 1));
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 1 && keys[0] === "$asset" && typeof record.$asset === "string" && record.$asset !== "") {
    return new AssetRef(record.$asset);
  }
  if (keys.length === 1 && keys[0] === "$bytes" && typeof record.$bytes === "string") {
    try {
      return base64ToBytes(record.$bytes);
    } catch {
      return record;
    }
  }
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    Object.defineProperty(out, key, {
      value: legacyValue(record[key], depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function reencode(text: string | null): string | null {
  if (text === null) return null;
  try {
    return toJsonText(legacyValue(JSON.parse(text)));
  } catch {
    return text;
  }
}

const COLUMNS: Record<string, readonly string[]> = {
  workflows: ["graph"],
  jobs: ["graph", "inputs", "outputs", "nodes"],
};

export function escapedValues(db: Database.Database): void {
  for (const [table, columns] of Object.entries(COLUMNS)) {
    const rows = db.prepare(`SELECT rowid AS rid, ${columns.join(", ")} FROM ${table}`).all() as Record<
      string,
      string | null
    >[];
    const update = db.prepare(`UPDATE ${table} SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE rowid = ?`);
    for (const row of rows) update.run(...columns.map((c) => reencode(row[c] ?? null)), row.rid);
  }
}
