// Guest copy of the boundary encoding (shared/protocol/values.ts), run inside QuickJS. Bytes travel as
// {"$bytes": base64}, assets as {"$asset": id}, data keys starting with "$" are escaped as "$$key".
// Functions, symbols, BigInt, cycles and promises are refused with the path where they were found.
// Every property read happens here, inside the VM, under the action's deadline and memory limit.

const MAX_DEPTH = 256;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
// Built on first decode: most actions never receive bytes, and every start pays for what runs here.
let LOOKUP;

function lookup() {
  if (!LOOKUP) {
    LOOKUP = new Int16Array(128).fill(-1);
    for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;
  }
  return LOOKUP;
}

export class AssetRef {
  constructor(id) {
    this.id = String(id);
    Object.freeze(this);
  }
}

export class ValueError extends TypeError {
  constructor(path, what) {
    super(`${path} is ${what}, which cannot cross the sandbox boundary (only JSON, Uint8Array and assets can).`);
    this.name = "ValueError";
  }
}

export function bytesToBase64(bytes) {
  const parts = [];
  let chunk = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i];
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    chunk +=
      ALPHABET[(n >> 18) & 63] +
      ALPHABET[(n >> 12) & 63] +
      (b === undefined ? "=" : ALPHABET[(n >> 6) & 63]) +
      (c === undefined ? "=" : ALPHABET[n & 63]);
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = "";
    }
  }
  parts.push(chunk);
  return parts.join("");
}

export function base64ToBytes(text) {
  const table = lookup();
  const clean = String(text).replace(/=+$/, "");
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const code = clean.charCodeAt(i);
    const v = code < 128 ? table[code] : -1;
    if (v < 0) throw new ValueError("value", "malformed base64");
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

function define(target, key, value) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function encode(value, path, stack, depth) {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "undefined":
      return null;
    case "bigint":
      throw new ValueError(path, "a BigInt (convert it with String() or Number())");
    case "symbol":
      throw new ValueError(path, "a Symbol");
    case "function":
      throw new ValueError(path, "a function");
  }
  if (value === null) return null;
  if (depth > MAX_DEPTH) throw new ValueError(path, `nested deeper than ${MAX_DEPTH} levels`);
  if (value instanceof Uint8Array) return { $bytes: bytesToBase64(value) };
  if (value instanceof ArrayBuffer) return { $bytes: bytesToBase64(new Uint8Array(value)) };
  if (value instanceof AssetRef) return { $asset: value.id };
  if (ArrayBuffer.isView(value))
    throw new ValueError(path, "a typed array other than Uint8Array (use new Uint8Array(x.buffer))");
  if (value instanceof Promise) throw new ValueError(path, "a Promise (await it first)");
  if (value instanceof Map || value instanceof Set || value instanceof WeakMap || value instanceof WeakSet) {
    throw new ValueError(path, "a Map or Set (convert it with Object.fromEntries or Array.from)");
  }
  if (stack.has(value)) throw new ValueError(path, "a cycle (it contains itself)");
  stack.add(value);
  try {
    if (Array.isArray(value)) {
      const out = new Array(value.length);
      for (let i = 0; i < value.length; i++) out[i] = encode(value[i], `${path}[${i}]`, stack, depth + 1);
      return out;
    }
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
    if (value instanceof Error) return { name: String(value.name), message: String(value.message) };
    let toJSON;
    try {
      toJSON = value.toJSON;
    } catch (err) {
      throw new ValueError(`${path}.toJSON`, `a getter that threw (${String(err?.message)})`);
    }
    // As JSON.stringify does; the ancestor stack and the depth bound stop a toJSON that loops.
    if (typeof toJSON === "function") return encode(toJSON.call(value), `${path}.toJSON()`, stack, depth + 1);
    const out = {};
    for (const key of Object.keys(value)) {
      let item;
      try {
        item = value[key];
      } catch (err) {
        throw new ValueError(`${path}.${key}`, `a getter that threw (${String(err?.message)})`);
      }
      if (item === undefined) continue;
      define(out, key.startsWith("$") ? `$${key}` : key, encode(item, `${path}.${key}`, stack, depth + 1));
    }
    return out;
  } finally {
    stack.delete(value);
  }
}

/** Guest value -> wire JSON text. Throws ValueError naming the path of anything it refuses. */
export function toWireJson(value, path) {
  return JSON.stringify(encode(value, path, new Set(), 0));
}

function decode(wire, depth) {
  if (wire === null || typeof wire !== "object") return wire;
  if (depth > MAX_DEPTH) throw new ValueError("value", `nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(wire)) {
    const out = new Array(wire.length);
    for (let i = 0; i < wire.length; i++) out[i] = decode(wire[i], depth + 1);
    return out;
  }
  const keys = Object.keys(wire);
  if (keys.length === 1 && keys[0] === "$bytes") return base64ToBytes(wire.$bytes);
  if (keys.length === 1 && keys[0] === "$asset") return new AssetRef(wire.$asset);
  const out = {};
  for (const key of keys) define(out, key.startsWith("$$") ? key.slice(1) : key, decode(wire[key], depth + 1));
  return out;
}

/** Wire JSON text -> guest value (Uint8Array for bytes, AssetRef for assets, own keys only). */
export function fromWireJson(text) {
  return decode(JSON.parse(text), 0);
}

export function fromWire(wire) {
  return decode(wire, 0);
}
