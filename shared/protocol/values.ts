/**
 * The boundary encoding (DESIGN.md section 6): JSON plus bytes and asset references, one encoding on
 * every wire (guest <-> worker host <-> page <-> server).
 *
 * - bytes travel as `{"$bytes": "<base64>"}` (a `Uint8Array` on either side),
 * - an asset as `{"$asset": "<id>"}` (an `AssetRef` on the host),
 * - a plain object key that starts with `$` is escaped by one more `$` (`$ref` -> `$$ref`), so data can
 *   never be mistaken for a marker.
 *
 * Non-finite numbers become null (as in JSON). Anything else (functions, symbols, cycles, BigInt, host
 * objects) is refused with a
 * `ValueEncodingError` naming the path. Decoding is the other direction and never trusts its input: it
 * builds null-prototype objects with `defineProperty`, so a `__proto__` key stays an own key.
 *
 * The guest has its own copy of this encoder in `worker/guest/values.js` (it runs inside QuickJS);
 * both obey the tests in tests/sandbox/values.test.ts.
 *
 * What a reader sees (the observation an executor answers: the CLI, MCP, the agent, the page) is
 * `toReadable`: the same values with keys as written, never decoded again.
 *
 * A value is decoded once where it enters (a host's router, the server's call router, a stored row)
 * and stays decoded (`Uint8Array`, `AssetRef`) until it leaves; what is kept as text (job rows,
 * workflow graphs, approval requests) is the same wire form (`toJsonText` / `fromJsonText`), so data
 * that merely looks like a marker stays data after a round trip through the store.
 */
import { z } from "zod";

export const BYTES_KEY = "$bytes";
export const ASSET_KEY = "$asset";

/** Bounds the walk so a hostile value (deep nesting) cannot exhaust the host's stack. */
export const MAX_DEPTH = 256;

/** An asset's id as the server makes them (`newId("ast")`: `ast_` and 32 hex digits). */
export const ASSET_ID = /^ast_[0-9a-f]{32}$/;

/** A reference to a stored asset, by id. Frozen; compared by id. */
export class AssetRef {
  readonly id: string;
  constructor(id: string) {
    this.id = id;
    Object.freeze(this);
  }
}

/** A value refused by the encoding; `path` says where (`args[0].cb`). */
export class ValueEncodingError extends Error {
  readonly path: string;
  constructor(path: string, what: string) {
    super(`${path} is ${what}, which cannot cross the sandbox boundary (only JSON, Uint8Array and assets can).`);
    this.name = "ValueEncodingError";
    this.path = path;
  }
}

export function isValueEncodingError(err: unknown): err is ValueEncodingError {
  return err instanceof ValueEncodingError;
}

/** Host value -> wire (JSON-safe). Throws `ValueEncodingError` for anything outside the encoding. */
export function toWire(value: unknown, path = "value"): unknown {
  return encode(value, { path, keyOf: escapeKey }, new Set(), 0);
}

/**
 * Host value -> the plain JSON a reader sees (a person, a model, an MCP client): keys exactly as the
 * action wrote them (`$ref` stays `$ref`), bytes as `{"$bytes": "<base64>"}`, an asset as
 * `{"$asset": "<id>"}`. Not a wire: nothing decodes it, so data that looks like a marker is never
 * revived from it (that is what the escaped wire form is for).
 */
export function toReadable(value: unknown, path = "value"): unknown {
  return encode(value, { path, keyOf: (key) => key }, new Set(), 0);
}

interface EncodeAt {
  path: string;
  /** How a plain object's key is written: escaped on a wire, as it is for a reader. */
  keyOf: (key: string) => string;
}

function encode(value: unknown, at: EncodeAt, seen: Set<object>, depth: number): unknown {
  const { path } = at;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // JSON semantics: NaN and the infinities become null rather than failing a whole result.
      return Number.isFinite(value) ? value : null;
    case "undefined":
      return null;
    case "bigint":
      throw new ValueEncodingError(path, "a BigInt");
    case "symbol":
      throw new ValueEncodingError(path, "a Symbol");
    case "function":
      throw new ValueEncodingError(path, "a function");
    case "object":
      break;
  }
  if (value === null) return null;
  const obj = value as object;
  if (depth > MAX_DEPTH) throw new ValueEncodingError(path, `nested deeper than ${MAX_DEPTH} levels`);
  if (obj instanceof Uint8Array) return { [BYTES_KEY]: bytesToBase64(obj) };
  if (obj instanceof AssetRef) return { [ASSET_KEY]: obj.id };
  if (seen.has(obj)) throw new ValueEncodingError(path, "a cycle (it contains itself)");
  seen.add(obj);
  try {
    if (Array.isArray(obj))
      return obj.map((item, i) => encode(item, { ...at, path: `${path}[${i}]` }, seen, depth + 1));
    const proto = Object.getPrototypeOf(obj);
    if (proto !== null && proto !== Object.prototype) {
      throw new ValueEncodingError(path, `a ${obj.constructor?.name ?? "non-plain"} object`);
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(obj)) {
      if (item === undefined) continue;
      define(out, at.keyOf(key), encode(item, { ...at, path: `${path}.${key}` }, seen, depth + 1));
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}

/**
 * Wire -> host value: null-prototype plain objects, `Uint8Array` for bytes, `AssetRef` for assets.
 * Throws `ValueEncodingError` on a malformed marker (an unescaped `$` key that is not a marker).
 */
export function fromWire(wire: unknown, path = "value"): unknown {
  return decode(wire, path, 0);
}

function decode(wire: unknown, path: string, depth: number): unknown {
  if (wire === null || typeof wire !== "object") {
    if (typeof wire === "number" && !Number.isFinite(wire)) return null;
    if (typeof wire === "function" || typeof wire === "symbol" || typeof wire === "bigint") {
      throw new ValueEncodingError(path, `a ${typeof wire}`);
    }
    return wire === undefined ? null : wire;
  }
  if (depth > MAX_DEPTH) throw new ValueEncodingError(path, `nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(wire)) return wire.map((item, i) => decode(item, `${path}[${i}]`, depth + 1));
  const keys = Object.keys(wire);
  const record = wire as Record<string, unknown>;
  if (keys.length === 1 && keys[0] === BYTES_KEY) {
    const b64 = record[BYTES_KEY];
    if (typeof b64 !== "string") throw new ValueEncodingError(path, "a $bytes marker without base64 text");
    return base64ToBytes(b64, path);
  }
  if (keys.length === 1 && keys[0] === ASSET_KEY) {
    const id = record[ASSET_KEY];
    if (typeof id !== "string" || id === "") throw new ValueEncodingError(path, "an $asset marker without an id");
    return new AssetRef(id);
  }
  const out: Record<string, unknown> = Object.create(null);
  for (const key of keys) {
    if (key.startsWith("$") && !key.startsWith("$$")) {
      throw new ValueEncodingError(`${path}.${key}`, "an unescaped $-key (escape data keys as $$key)");
    }
    const plain = unescapeKey(key);
    define(out, plain, decode(record[key], `${path}.${plain}`, depth + 1));
  }
  return out;
}

export function escapeKey(key: string): string {
  return key.startsWith("$") ? `$${key}` : key;
}

export function unescapeKey(key: string): string {
  return key.startsWith("$$") ? key.slice(1) : key;
}

/** An own, enumerable data property even for `__proto__`. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

/** Plain-JS base64 so the same code runs in a worker, a page and Node without Buffer or btoa. */
export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] as number;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    chunk +=
      ALPHABET.charAt((n >> 18) & 63) +
      ALPHABET.charAt((n >> 12) & 63) +
      (b === undefined ? "=" : ALPHABET.charAt((n >> 6) & 63)) +
      (c === undefined ? "=" : ALPHABET.charAt(n & 63));
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = "";
    }
  }
  parts.push(chunk);
  return parts.join("");
}

export function base64ToBytes(text: string, path = "value"): Uint8Array {
  const clean = text.replace(/=+$/, "");
  if (clean.length % 4 === 1) throw new ValueEncodingError(path, "malformed base64");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const code = clean.charCodeAt(i);
    const v = code < 128 ? (LOOKUP[code] as number) : -1;
    if (v < 0) throw new ValueEncodingError(path, "malformed base64");
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

/** A value as JSON text in the boundary encoding: what the store keeps (job rows, graphs, approvals). */
export function toJsonText(value: unknown, path = "value"): string {
  return JSON.stringify(toWire(value, path));
}

/** The inverse of `toJsonText`: host values, with markers revived and escaped keys restored. */
export function fromJsonText(text: string, path = "value"): unknown {
  return fromWire(JSON.parse(text), path);
}

/**
 * The JSON Schema keyword naming the TypeScript type of a host value JSON Schema cannot express: the
 * JSON Schemas of bytes and assets show their wire form and name the guest's type here, which the
 * declaration printer (shared/declarations) prints.
 */
export const TS_TYPE = "x-typescript";

export const BYTES_SCHEMA = {
  [TS_TYPE]: "Uint8Array",
  type: "object",
  properties: { [BYTES_KEY]: { type: "string" } },
  required: [BYTES_KEY],
  additionalProperties: false,
  description: "Bytes: a Uint8Array in an action, {$bytes: base64} in JSON",
} as const;

export const ASSET_SCHEMA = {
  [TS_TYPE]: "AssetRef",
  type: "object",
  properties: { [ASSET_KEY]: { type: "string" } },
  required: [ASSET_KEY],
  additionalProperties: false,
  description: 'An asset reference: an AssetRef (.id) in an action, {$asset: "<id>"} in JSON',
} as const;

/** Bytes in a capability's arguments: a `Uint8Array` once decoded (an action passes one as it is). */
export const BytesArg = z.instanceof(Uint8Array).meta(BYTES_SCHEMA);

/** An asset by id: the id text, or the `AssetRef` another call returned; parses to the id. */
export const AssetIdArg = z
  .union([z.string().min(1).max(200), z.instanceof(AssetRef).meta(ASSET_SCHEMA)])
  .transform((value) => (typeof value === "string" ? value : value.id))
  .describe('The asset: its id, or the reference another call returned ({$asset: "<id>"} in JSON)');

/** The id of an `AssetRef`, or undefined for anything else (data that looks like a marker included). */
export function assetIdOf(value: unknown): string | undefined {
  return value instanceof AssetRef ? value.id : undefined;
}
