// Guest copy of the boundary encoding (shared/protocol/values.ts), run inside QuickJS. Bytes travel as
// {"$bytes": base64}, assets as {"$asset": id}, data keys starting with "$" are escaped as "$$key".
// Functions, symbols, BigInt, cycles and promises are refused with the path where they were found.
// Every property read happens here, inside the VM, under the action's deadline and memory limit, and
// every builtin used is one captured before the action ran (intrinsics.js). The encoded tree is made
// of null-prototype objects and arrays, so JSON.stringify finds no toJSON the action may have put on
// Object.prototype or Array.prototype: the text is exactly the encoding.
import {
  ArrayBufferIsView,
  ArrayCtor,
  ArrayIsArray,
  ArrayPrototypeJoin,
  append,
  DatePrototypeToISOString,
  dateTime,
  defineField,
  ErrorCtor,
  FunctionPrototypeCall,
  Int16ArrayCtor,
  isArrayBuffer,
  isInstanceOf,
  isUint8Array,
  JSONParse,
  JSONStringify,
  MapCtor,
  MathFloor,
  NumberIsFinite,
  NumberIsNaN,
  ObjectCreate,
  ObjectFreeze,
  ObjectKeys,
  ObjectSetPrototypeOf,
  PromiseCtor,
  SetCtor,
  SetPrototypeAdd,
  SetPrototypeDelete,
  SetPrototypeHas,
  StringCtor,
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  TypedArrayPrototypeFill,
  TypedArrayPrototypeGetLength,
  TypeErrorCtor,
  Uint8ArrayCtor,
  WeakMapCtor,
  WeakSetCtor,
} from "nodetool:intrinsics";

const MAX_DEPTH = 256;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
// Built on first decode: most actions never receive bytes, and every start pays for what runs here.
let LOOKUP;

function lookup() {
  if (!LOOKUP) {
    LOOKUP = TypedArrayPrototypeFill(new Int16ArrayCtor(128), -1);
    for (let i = 0; i < ALPHABET.length; i++) LOOKUP[StringPrototypeCharCodeAt(ALPHABET, i)] = i;
  }
  return LOOKUP;
}

export class AssetRef {
  constructor(id) {
    defineField(this, "id", StringCtor(id));
    ObjectFreeze(this);
  }
}

export class ValueError extends TypeErrorCtor {
  constructor(path, what) {
    super(`${path} is ${what}, which cannot cross the sandbox boundary (only JSON, Uint8Array and assets can).`);
    defineField(this, "name", "ValueError");
  }
}

export function bytesToBase64(bytes) {
  const parts = [];
  let chunk = "";
  const length = TypedArrayPrototypeGetLength(bytes);
  for (let i = 0; i < length; i += 3) {
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
      append(parts, chunk);
      chunk = "";
    }
  }
  append(parts, chunk);
  return ArrayPrototypeJoin(parts, "");
}

const EQUALS = 61;

export function base64ToBytes(text) {
  const table = lookup();
  const full = StringCtor(text);
  let end = full.length;
  while (end > 0 && StringPrototypeCharCodeAt(full, end - 1) === EQUALS) end--;
  const clean = StringPrototypeSlice(full, 0, end);
  const out = new Uint8ArrayCtor(MathFloor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const code = StringPrototypeCharCodeAt(clean, i);
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

function encode(value, path, stack, depth) {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return NumberIsFinite(value) ? value : null;
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
  if (isUint8Array(value)) return tagged("$bytes", bytesToBase64(value));
  if (isArrayBuffer(value)) return tagged("$bytes", bytesToBase64(new Uint8ArrayCtor(value)));
  if (isInstanceOf(value, AssetRef)) return tagged("$asset", value.id);
  if (ArrayBufferIsView(value))
    throw new ValueError(path, "a typed array other than Uint8Array (use new Uint8Array(x.buffer))");
  if (isInstanceOf(value, PromiseCtor)) throw new ValueError(path, "a Promise (await it first)");
  if (
    isInstanceOf(value, MapCtor) ||
    isInstanceOf(value, SetCtor) ||
    isInstanceOf(value, WeakMapCtor) ||
    isInstanceOf(value, WeakSetCtor)
  ) {
    throw new ValueError(path, "a Map or Set (convert it with Object.fromEntries or Array.from)");
  }
  if (SetPrototypeHas(stack, value)) throw new ValueError(path, "a cycle (it contains itself)");
  SetPrototypeAdd(stack, value);
  try {
    if (ArrayIsArray(value)) {
      const out = ObjectSetPrototypeOf(new ArrayCtor(value.length), null);
      for (let i = 0; i < value.length; i++) out[i] = encode(value[i], `${path}[${i}]`, stack, depth + 1);
      return out;
    }
    const time = dateTime(value);
    if (time !== undefined) return NumberIsNaN(time) ? null : DatePrototypeToISOString(value);
    if (isInstanceOf(value, ErrorCtor))
      return tagged2("name", StringCtor(value.name), "message", StringCtor(value.message));
    let toJSON;
    try {
      toJSON = value.toJSON;
    } catch (err) {
      throw new ValueError(`${path}.toJSON`, `a getter that threw (${StringCtor(err?.message)})`);
    }
    // As JSON.stringify does; the ancestor stack and the depth bound stop a toJSON that loops.
    if (typeof toJSON === "function")
      return encode(FunctionPrototypeCall(toJSON, value), `${path}.toJSON()`, stack, depth + 1);
    const out = ObjectCreate(null);
    const keys = ObjectKeys(value);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      let item;
      try {
        item = value[key];
      } catch (err) {
        throw new ValueError(`${path}.${key}`, `a getter that threw (${StringCtor(err?.message)})`);
      }
      if (item === undefined) continue;
      defineField(out, key[0] === "$" ? `$${key}` : key, encode(item, `${path}.${key}`, stack, depth + 1));
    }
    return out;
  } finally {
    SetPrototypeDelete(stack, value);
  }
}

function tagged(key, text) {
  const out = ObjectCreate(null);
  defineField(out, key, text);
  return out;
}

function tagged2(k1, v1, k2, v2) {
  const out = tagged(k1, v1);
  defineField(out, k2, v2);
  return out;
}

/** Guest value -> wire JSON text. Throws ValueError naming the path of anything it refuses. */
export function toWireJson(value, path) {
  return JSONStringify(encode(value, path, new SetCtor(), 0));
}

function decode(wire, depth) {
  if (wire === null || typeof wire !== "object") return wire;
  if (depth > MAX_DEPTH) throw new ValueError("value", `nested deeper than ${MAX_DEPTH} levels`);
  if (ArrayIsArray(wire)) {
    const out = [];
    for (let i = 0; i < wire.length; i++) defineField(out, i, decode(wire[i], depth + 1));
    return out;
  }
  const keys = ObjectKeys(wire);
  if (keys.length === 1 && keys[0] === "$bytes") return base64ToBytes(wire.$bytes);
  if (keys.length === 1 && keys[0] === "$asset") return new AssetRef(wire.$asset);
  const out = {};
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    defineField(
      out,
      key[0] === "$" && key[1] === "$" ? StringPrototypeSlice(key, 1) : key,
      decode(wire[key], depth + 1),
    );
  }
  return out;
}

/** Wire JSON text -> guest value (Uint8Array for bytes, AssetRef for assets, own keys only). */
export function fromWireJson(text) {
  return decode(JSONParse(text), 0);
}

export function fromWire(wire) {
  return decode(wire, 0);
}

/** A deep copy of plain data, as it would arrive on the other side of the boundary (no JSON text). */
export function clone(value, path) {
  return value === undefined ? undefined : decode(encode(value, path ?? "value", new SetCtor(), 0), 0);
}
