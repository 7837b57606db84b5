/**
 * Zod schemas for the two non-JSON values a capability argument may carry (DESIGN.md section 6): an
 * asset reference and bytes. Each accepts both forms it can arrive in: the wire marker
 * (`{"$asset": id}`, `{"$bytes": base64}`) when the server gets plain JSON, and the decoded host value
 * (`AssetRef`, `Uint8Array`) when a host decodes the wire first. Bytes stay base64 text after parsing,
 * because parsed args are hashed for approvals and shown in prompts, where a typed array would be
 * serialised one key per byte.
 */
import { z } from "zod";
import { AssetRef, base64ToBytes, bytesToBase64, MAX_DEPTH } from "../protocol/values.ts";

/** Bytes after parsing: always the wire marker. Decode with `base64ToBytes` in the implementation. */
export interface BytesValue {
  readonly $bytes: string;
}

export const BytesArg = z
  .union([
    z.object({ $bytes: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64 text") }).strict(),
    z.instanceof(Uint8Array),
  ])
  .transform((value): BytesValue => (value instanceof Uint8Array ? { $bytes: bytesToBase64(value) } : value))
  .describe("Bytes: a Uint8Array in an action, {$bytes: base64} in JSON");

/** An asset by id: the id text, `{$asset: id}` or an `AssetRef`; parses to the id. */
export const AssetIdArg = z
  .union([
    z.string().min(1).max(200),
    z.object({ $asset: z.string().min(1).max(200) }).strict(),
    z.instanceof(AssetRef),
  ])
  .transform((value) => (typeof value === "string" ? value : value instanceof AssetRef ? value.id : value.$asset))
  .describe('The asset: its id, or the {$asset: "<id>"} reference another call returned');

/** Bytes in either form (`Uint8Array` or the `{$bytes}` marker), or undefined for anything else. */
export function bytesOf(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  return isBytesValue(value) ? base64ToBytes(value.$bytes) : undefined;
}

/** The asset id of `{$asset: id}` or an `AssetRef`, or undefined for anything else. */
export function assetIdOf(value: unknown): string | undefined {
  if (value instanceof AssetRef) return value.id;
  if (typeof value === "object" && value !== null && Object.keys(value).length === 1) {
    const id = (value as { $asset?: unknown }).$asset;
    if (typeof id === "string" && id !== "") return id;
  }
  return undefined;
}

export function isBytesValue(value: unknown): value is BytesValue {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.keys(value).length === 1 &&
    typeof (value as { $bytes?: unknown }).$bytes === "string"
  );
}

/**
 * The JSON form of an asset reference, for places that hold only JSON (workflow values, stored job
 * outputs). A capability result returns an `AssetRef` instead; the transport encodes it.
 */
export function assetRef(id: string): { $asset: string } {
  return { $asset: id };
}

/**
 * JSON that carries markers as plain objects (workflow values, stored job outputs) -> host values:
 * each `{$asset: id}` becomes an `AssetRef`, each `{$bytes}` a `Uint8Array`, everything else is
 * copied as it is. A capability returning such JSON passes it through here, so the transport encodes
 * references as references instead of escaping them as data.
 */
export function reviveMarkers(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return value;
  if (value instanceof Uint8Array || value instanceof AssetRef) return value;
  if (Array.isArray(value)) return value.map((item) => reviveMarkers(item, depth + 1));
  const id = assetIdOf(value);
  if (id !== undefined) return new AssetRef(id);
  if (isBytesValue(value)) {
    try {
      return base64ToBytes(value.$bytes);
    } catch {
      return value;
    }
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, key, {
      value: reviveMarkers(item, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * A `JSON.stringify` replacer writing host values in the marker form `reviveMarkers` reads back: an
 * `AssetRef` as `{$asset: id}`, a `Uint8Array` as `{$bytes: base64}`. Plain `JSON.stringify` would
 * write them as `{"id": ...}` and one key per byte, losing what they were.
 */
export function markerReplacer(this: unknown, key: string, value: unknown): unknown {
  // The holder's own value, before `toJSON`: a Node Buffer would otherwise arrive as {type, data}.
  const raw = (this as Record<string, unknown>)[key];
  if (raw instanceof Uint8Array) return { $bytes: bytesToBase64(raw) };
  if (value instanceof AssetRef) return assetRef(value.id);
  return value;
}

/** The JSON text of a workflow value (job inputs, graphs, outputs), assets and bytes kept as markers. */
export function markersJson(value: unknown): string {
  return JSON.stringify(value, markerReplacer) ?? "null";
}
