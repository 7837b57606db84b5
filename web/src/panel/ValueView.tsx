/**
 * A decoded value (after `fromWire`: assets are `AssetRef`, bytes `Uint8Array`) as a person reads it:
 * an image asset as the image at its own aspect ratio, an array of flat objects as a table (at any
 * depth), any other object or array as a collapsible tree, text with invisible characters made
 * visible. Leaves print as `"key": value` in JSON notation, so what the tree says reads like the JSON
 * it is.
 */
import type { ReactNode } from "react";
import { AssetRef } from "../../../shared/protocol/values.ts";
import { isAssetId, type NameOf, useAssetNames } from "../asset-names.ts";
import { PageImage } from "../PageImage.tsx";
import { usePageUrl } from "../page-fetch.ts";
import { Revealed } from "../reveal-view.tsx";

/**
 * An asset reference: a link named by the asset's file name once read (its id until then, or when it
 * is not the person's), and the image itself when it is one (non-images hide the preview).
 */
export function AssetView({ id, thumbnail = false }: { id: string; thumbnail?: boolean }) {
  const path = `/assets/${encodeURIComponent(id)}`;
  const href = usePageUrl(path);
  const name = useAssetNames(id)(id) ?? `asset ${id}`;
  return (
    <span className={thumbnail ? "asset thumbnail" : "asset"}>
      <a href={href} target="_blank" rel="noreferrer" title={id}>
        {name}
      </a>
      <PageImage src={path} alt={name} className="asset-preview" />
    </span>
  );
}

type Scalar = string | number | boolean | null;

const isScalar = (value: unknown): value is Scalar =>
  value === null || ["string", "number", "boolean"].includes(typeof value);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof AssetRef);

/** Rows for a table: a non-empty array of objects whose values are all scalars or assets. */
function tableRows(value: unknown, most = 500): { columns: string[]; rows: Record<string, unknown>[] } | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > most) return undefined;
  const columns = new Set<string>();
  for (const row of value) {
    if (!isRecord(row)) return undefined;
    for (const [key, cell] of Object.entries(row)) {
      if (!isScalar(cell) && !(cell instanceof AssetRef)) return undefined;
      columns.add(key);
    }
  }
  return columns.size === 0 ? undefined : { columns: [...columns], rows: value as Record<string, unknown>[] };
}

function Leaf({ value }: { value: unknown }): ReactNode {
  if (value instanceof AssetRef) return <AssetView id={value.id} />;
  if (value instanceof Uint8Array) return <span className="bytes">{value.length} bytes</span>;
  if (typeof value === "string") {
    return (
      <span className="json-string">
        <Revealed text={JSON.stringify(value)} />
      </span>
    );
  }
  return <span className={`json-${value === null ? "null" : typeof value}`}>{JSON.stringify(value) ?? "null"}</span>;
}

function Branch({ name, value, depth }: { name: string | undefined; value: unknown; depth: number }): ReactNode {
  const label = name === undefined ? null : <span className="json-key">{`${name}: `}</span>;
  if (!Array.isArray(value) && !isRecord(value)) {
    return (
      <div className="json-leaf">
        {label}
        <Leaf value={value} />
      </div>
    );
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) {
    return (
      <div className="json-leaf">
        {label}
        {open}
        {close}
      </div>
    );
  }
  const table = tableRows(value);
  return (
    <details className="json-branch" open={depth < 3}>
      <summary>
        {label}
        {open}
        <span className="json-count">
          {" "}
          {entries.length} {Array.isArray(value) ? "items" : "keys"}{" "}
        </span>
      </summary>
      <div className="json-children">
        {table ? (
          // A list of records inside a value (a node's rows beside its other outputs) is a table too.
          <ValueTable {...table} />
        ) : (
          entries.map(([key, item]) => (
            <Branch key={key} name={Array.isArray(value) ? key : JSON.stringify(key)} value={item} depth={depth + 1} />
          ))
        )}
      </div>
      <span className="json-close">{close}</span>
    </details>
  );
}

function ValueTable({ columns, rows }: { columns: string[]; rows: Record<string, unknown>[] }) {
  // A table wider or longer than the panel scrolls in its own box (browsers let Tab reach a scroller).
  return (
    <div className="value-table-box">
      <table className="value-table">
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
            <tr key={i}>
              {columns.map((c) => (
                <td key={c}>{row[c] === undefined ? "" : <Leaf value={row[c]} />}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The whole value: a table, a tree, or a single leaf (scalars as JSON text in `pre.json`). */
export function ValueView({ value }: { value: unknown }) {
  const table = tableRows(value);
  if (table) return <ValueTable {...table} />;
  if (Array.isArray(value) || isRecord(value)) {
    return (
      <div className="json-tree">
        <Branch name={undefined} value={value} depth={0} />
      </div>
    );
  }
  if (value instanceof AssetRef || value instanceof Uint8Array) return <Leaf value={value} />;
  return (
    <pre className="json">
      <Revealed text={JSON.stringify(value) ?? "null"} />
    </pre>
  );
}

/**
 * A short one-line preview of a value (node outputs on the canvas, job outputs in the list): an asset
 * by its name where `nameOf` knows it (a reference, or text that is an asset's id), else by its id;
 * rows (a list of records) by their count and columns.
 */
export function previewText(value: unknown, max = 80, nameOf?: NameOf): string {
  const named = (id: string) => nameOf?.(id);
  const asset = (v: unknown) =>
    v instanceof AssetRef ? (named(v.id) ?? `asset ${v.id}`) : isAssetId(v) ? named(v) : undefined;
  const table = tableRows(value, Number.POSITIVE_INFINITY);
  const text =
    asset(value) ??
    // Rows (a table) in a line: how many, and their columns; the table itself is in the Jobs tab.
    (table
      ? `${table.rows.length} ${table.rows.length === 1 ? "row" : "rows"} (${table.columns.join(", ")})`
      : undefined) ??
    (value instanceof Uint8Array
      ? `${value.length} bytes`
      : (JSON.stringify(value, (_k, v: unknown) => asset(v) ?? (v instanceof Uint8Array ? `${v.length} bytes` : v)) ??
        "null"));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Named values in one line (a run's outputs, a job's inputs): `name: value` for each, each cut short. */
export function valuesLine(values: unknown, none = "no outputs", nameOf?: NameOf): string {
  const named = values && typeof values === "object" && !Array.isArray(values);
  if (named && !(values instanceof Uint8Array) && !(values instanceof AssetRef)) {
    const { $truncated, chars } = values as { $truncated?: unknown; chars?: unknown };
    if ($truncated === true && typeof chars === "number") return `${chars} characters, too long to list`;
    const entries = Object.entries(values as Record<string, unknown>);
    if (entries.length === 0) return none;
    return entries.map(([name, value]) => `${name}: ${previewText(value, 40, nameOf)}`).join(", ");
  }
  return previewText(values, 60, nameOf);
}

/**
 * A value as text to copy: a string as it is, anything else as indented JSON (an asset as its id, bytes
 * as their count). Undefined for what was too large to list (`{$truncated}`): there is nothing whole to copy.
 */
export function copyableText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && (value as { $truncated?: unknown }).$truncated === true) return undefined;
  return (
    JSON.stringify(
      value,
      (_key, v: unknown) => (v instanceof AssetRef ? v.id : v instanceof Uint8Array ? `${v.length} bytes` : v),
      2,
    ) ?? "null"
  );
}
