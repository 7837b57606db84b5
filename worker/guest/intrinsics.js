// Every builtin the sandbox's own guest code uses, by name, made from the copies capture.js took when
// the setup module was evaluated: before any action ran. An action may replace or poison any global and
// any prototype method it likes (JSON.stringify, Array.prototype.map, Object.keys, Promise.prototype.then,
// ...); the sandbox's modules keep using these, so serialising the result, describing an error, encoding
// a call's arguments, formatting a log line or running batch() never calls the action's replacements.
// This module is evaluated on first import (by the first sandbox module an action needs), which may be
// after the action has tampered: so it reads nothing off a global or a prototype, only the copies.
//
// Array methods that build a new array through the receiver's `constructor` (slice, map, filter,
// concat, splice) are not captured at all: the sandbox builds its arrays with loops and `append`.
// Prototype methods are "uncurried" (`ArrayPrototypePush(list, item)`): bound through the captured
// Function.prototype.call, so no call looks up `call`, `apply` or the method on the receiver. Brand
// checks use internal slots or the captured constructors' prototypes, never a replaceable
// Symbol.hasInstance. A test (tests/hostile/tamper.test.ts) replaces each member capture.js copies in
// turn, and another (tests/unit/guest-intrinsics.test.ts) checks that the other guest modules reach
// builtins only through this one.
//
// What no capture can undo is the language's own protocol on the action's values and promises: in
// QuickJS `await` looks up the awaited promise's `then` (and `constructor`), resolving a promise with
// an object reads its `then`, and JSON.stringify keeps its cycle stack in an array (so an index
// accessor on Array.prototype reaches it). An action that plants such things (Promise.prototype.then,
// Object.prototype.then, Array.prototype[0]) breaks its own awaits and results, inside its own watched
// slices and under its own deadline; it harms nothing else (tests/hostile/tamper.test.ts).
import { captured, uncurryThis } from "nodetool:capture";

const G = captured.Globals;
const C = captured;

export const Global = C.Global;
export const ProxyCtor = G.Proxy;
export const ReflectGet = C.Reflect.get;
export const SymbolIterator = C.Symbol.iterator;

export const JSONParse = C.JSON.parse;
export const JSONStringify = C.JSON.stringify;

export const ObjectKeys = C.Object.keys;
export const ObjectDefineProperty = C.Object.defineProperty;
export const ObjectFreeze = C.Object.freeze;
export const ObjectCtor = G.Object;
export const ObjectCreate = C.Object.create;
export const ObjectSetPrototypeOf = C.Object.setPrototypeOf;

export const FunctionPrototypeCall = uncurryThis(C.FunctionPrototype.call);

export const ArrayCtor = G.Array;
export const ArrayIsArray = C.Array.isArray;
export const ArrayFrom = C.Array.from;
export const ArrayPrototypePush = uncurryThis(C.ArrayPrototype.push);
export const ArrayPrototypeJoin = uncurryThis(C.ArrayPrototype.join);
export const ArrayPrototypeShift = uncurryThis(C.ArrayPrototype.shift);
export const ArrayPrototypeSort = uncurryThis(C.ArrayPrototype.sort);

export const StringCtor = G.String;
export const StringPrototypeSlice = uncurryThis(C.StringPrototype.slice);
export const StringPrototypeCharCodeAt = uncurryThis(C.StringPrototype.charCodeAt);
export const StringPrototypeIncludes = uncurryThis(C.StringPrototype.includes);
export const StringPrototypeToLowerCase = uncurryThis(C.StringPrototype.toLowerCase);
export const StringFromCharCode = C.String.fromCharCode;
export const StringPrototypeValueOf = uncurryThis(C.StringPrototype.valueOf);
export const NumberPrototypeValueOf = uncurryThis(C.NumberPrototype.valueOf);
export const BooleanPrototypeValueOf = uncurryThis(C.BooleanPrototype.valueOf);
export const NumberPrototypeToString = uncurryThis(C.NumberPrototype.toString);

export const NumberCtor = G.Number;
export const NumberIsFinite = C.Number.isFinite;
export const NumberIsNaN = C.Number.isNaN;
export const MathMin = C.Math.min;
export const MathMax = C.Math.max;
export const MathFloor = C.Math.floor;

export const RegExpCtor = G.RegExp;
export const RegExpPrototypeExec = uncurryThis(C.RegExpPrototype.exec);
export const RegExpPrototypeGetSource = uncurryThis(C.RegExpPrototype.get_source);
export const RegExpPrototypeGetFlags = uncurryThis(C.RegExpPrototype.get_flags);

export const MapCtor = G.Map;
export const MapPrototypeGet = uncurryThis(C.MapPrototype.get);
export const MapPrototypeSet = uncurryThis(C.MapPrototype.set);
export const MapPrototypeHas = uncurryThis(C.MapPrototype.has);
export const MapPrototypeDelete = uncurryThis(C.MapPrototype.delete);
export const MapPrototypeForEach = uncurryThis(C.MapPrototype.forEach);
export const WeakMapCtor = G.WeakMap;
export const WeakSetCtor = G.WeakSet;
export const PromiseCtor = G.Promise;
export const SetCtor = G.Set;
export const SetPrototypeHas = uncurryThis(C.SetPrototype.has);
export const SetPrototypeAdd = uncurryThis(C.SetPrototype.add);
export const SetPrototypeDelete = uncurryThis(C.SetPrototype.delete);
export const SetPrototypeForEach = uncurryThis(C.SetPrototype.forEach);
export const DateCtor = G.Date;

export const ErrorCtor = G.Error;
export const TypeErrorCtor = G.TypeError;
/** The error and typed-array constructors by name, as they were at setup. */
export const ErrorCtors = ObjectFreeze({
  Error: G.Error,
  EvalError: G.EvalError,
  RangeError: G.RangeError,
  ReferenceError: G.ReferenceError,
  SyntaxError: G.SyntaxError,
  TypeError: G.TypeError,
  URIError: G.URIError,
});
export const TypedArrayCtors = ObjectFreeze({
  Int8Array: G.Int8Array,
  Uint8Array: G.Uint8Array,
  Uint8ClampedArray: G.Uint8ClampedArray,
  Int16Array: G.Int16Array,
  Uint16Array: G.Uint16Array,
  Int32Array: G.Int32Array,
  Uint32Array: G.Uint32Array,
  Float32Array: G.Float32Array,
  Float64Array: G.Float64Array,
  BigInt64Array: G.BigInt64Array,
  BigUint64Array: G.BigUint64Array,
  DataView: G.DataView,
});

export const Uint8ArrayCtor = G.Uint8Array;
export const Int16ArrayCtor = G.Int16Array;
export const ArrayBufferIsView = C.ArrayBuffer.isView;
export const TypedArrayPrototypeGetLength = uncurryThis(C.TypedArrayPrototype.get_length);
export const TypedArrayPrototypeFill = uncurryThis(C.TypedArrayPrototype.fill);
const TypedArrayPrototypeGetTag = uncurryThis(C.TypedArrayPrototypeGetTag);
const TypedArrayPrototypeGetBuffer = uncurryThis(C.TypedArrayPrototype.get_buffer);
const TypedArrayPrototypeGetByteOffset = uncurryThis(C.TypedArrayPrototype.get_byteOffset);
const TypedArrayPrototypeGetByteLength = uncurryThis(C.TypedArrayPrototype.get_byteLength);
const DataViewPrototypeGetBuffer = uncurryThis(C.DataViewPrototype.get_buffer);
const DataViewPrototypeGetByteOffset = uncurryThis(C.DataViewPrototype.get_byteOffset);
const DataViewPrototypeGetByteLength = uncurryThis(C.DataViewPrototype.get_byteLength);
const ArrayBufferPrototypeGetByteLength = uncurryThis(C.ArrayBufferPrototype.get_byteLength);
const DatePrototypeGetTime = uncurryThis(C.DatePrototype.getTime);
export const DatePrototypeToISOString = uncurryThis(C.DatePrototype.toISOString);

const hasInstance = uncurryThis(C.FunctionPrototypeHasInstance);

/** `value instanceof Ctor` for a captured constructor, immune to a replaced Symbol.hasInstance. */
export function isInstanceOf(value, Ctor) {
  return hasInstance(Ctor, value);
}

/** A typed array's kind ("Uint8Array", "Float64Array", ...) by its internal slot; undefined for anything else. */
export function typedArrayName(value) {
  return ArrayBufferIsView(value) ? TypedArrayPrototypeGetTag(value) : undefined;
}

/** A real Uint8Array (by its internal slot, not its prototype). */
export function isUint8Array(value) {
  return ArrayBufferIsView(value) && TypedArrayPrototypeGetTag(value) === "Uint8Array";
}

/** The ArrayBuffer under a typed array. */
export function bufferOf(typedArray) {
  return TypedArrayPrototypeGetBuffer(typedArray);
}

/** The bytes a typed array or a DataView looks at, as a Uint8Array over the same memory. */
export function viewBytes(view) {
  if (TypedArrayPrototypeGetTag(view) !== undefined) {
    const buffer = TypedArrayPrototypeGetBuffer(view);
    return new Uint8ArrayCtor(buffer, TypedArrayPrototypeGetByteOffset(view), TypedArrayPrototypeGetByteLength(view));
  }
  const buffer = DataViewPrototypeGetBuffer(view);
  return new Uint8ArrayCtor(buffer, DataViewPrototypeGetByteOffset(view), DataViewPrototypeGetByteLength(view));
}

/** A real ArrayBuffer (not a SharedArrayBuffer, not an object that inherits from its prototype). */
export function isArrayBuffer(value) {
  if (value === null || typeof value !== "object") return false;
  try {
    ArrayBufferPrototypeGetByteLength(value);
    return true;
  } catch {
    return false;
  }
}

/** A real Date, and its time (NaN for an invalid one); undefined for anything else. */
export function dateTime(value) {
  if (value === null || typeof value !== "object") return undefined;
  try {
    return DatePrototypeGetTime(value);
  } catch {
    return undefined;
  }
}

/** An own, enumerable data property, whatever setters the prototypes carry. */
export function defineField(target, key, value) {
  ObjectDefineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Appends to an array the sandbox made, whatever setters Array.prototype carries. */
export function append(list, value) {
  defineField(list, list.length, value);
}

/** `[...map.keys()]` without the iterator protocol. */
export function mapKeys(map) {
  const out = [];
  MapPrototypeForEach(map, (_value, key) => append(out, key));
  return out;
}

/** `[...map.values()]` without the iterator protocol. */
export function mapValues(map) {
  const out = [];
  MapPrototypeForEach(map, (value) => append(out, value));
  return out;
}
