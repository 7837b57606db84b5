// Every builtin the sandbox's own guest code uses, captured when the setup module is evaluated: before
// any action runs. An action may replace or poison any global and any prototype method it likes
// (JSON.stringify, Array.prototype.map, Object.keys, Promise.prototype.then, ...); the sandbox's modules
// keep using these copies, so serialising the result, describing an error, encoding a call's arguments,
// formatting a log line or running batch() never calls the action's replacements.
//
// Array methods that build a new array through the receiver's `constructor` (slice, map, filter,
// concat, splice) are not captured at all: the sandbox builds its arrays with loops and `append`.
// Prototype methods are "uncurried" (`ArrayPrototypePush(list, item)`): bound through the captured
// Function.prototype.call, so no call looks up `call`, `apply` or the method on the receiver. Brand
// checks use internal slots or the captured constructors' prototypes, never a replaceable
// Symbol.hasInstance. Part of the setup module (guest-sources.ts): its top-level names must not clash
// with those of errors.js, bridge.js and setup.js. A test (tests/hostile/tamper.test.ts) replaces each
// member named here in turn, and another (tests/unit/guest-intrinsics.test.ts) checks that the other guest
// modules reach builtins only through this one.
//
// What no capture can undo is the language's own protocol on the action's values and promises: in
// QuickJS `await` looks up the awaited promise's `then` (and `constructor`), resolving a promise with
// an object reads its `then`, and JSON.stringify keeps its cycle stack in an array (so an index
// accessor on Array.prototype reaches it). An action that plants such things (Promise.prototype.then,
// Object.prototype.then, Array.prototype[0]) breaks its own awaits and results, inside its own watched
// slices and under its own deadline; it harms nothing else (tests/hostile/tamper.test.ts).

const FunctionPrototype = Function.prototype;
const uncurryThis = FunctionPrototype.bind.bind(FunctionPrototype.call);
const getter = (object, key) => uncurryThis(Object.getOwnPropertyDescriptor(object, key).get);

export const Global = globalThis;
export const ProxyCtor = Proxy;
export const ReflectGet = Reflect.get;
export const SymbolIterator = Symbol.iterator;

export const JSONParse = JSON.parse;
export const JSONStringify = JSON.stringify;

export const ObjectKeys = Object.keys;
export const ObjectDefineProperty = Object.defineProperty;
export const ObjectDefineProperties = Object.defineProperties;
export const ObjectFreeze = Object.freeze;
export const ObjectCtor = Object;
export const ObjectCreate = Object.create;
export const ObjectSetPrototypeOf = Object.setPrototypeOf;

export const FunctionPrototypeCall = uncurryThis(FunctionPrototype.call);

export const ArrayCtor = Array;
export const ArrayIsArray = Array.isArray;
export const ArrayFrom = Array.from;
export const ArrayPrototypePush = uncurryThis(Array.prototype.push);
export const ArrayPrototypeJoin = uncurryThis(Array.prototype.join);
export const ArrayPrototypeShift = uncurryThis(Array.prototype.shift);
export const ArrayPrototypeSort = uncurryThis(Array.prototype.sort);

export const StringCtor = String;
export const StringPrototypeSlice = uncurryThis(String.prototype.slice);
export const StringPrototypeCharCodeAt = uncurryThis(String.prototype.charCodeAt);
export const StringPrototypeIncludes = uncurryThis(String.prototype.includes);
export const StringPrototypeToLowerCase = uncurryThis(String.prototype.toLowerCase);
export const StringPrototypeRepeat = uncurryThis(String.prototype.repeat);
export const StringFromCharCode = String.fromCharCode;
export const StringPrototypeValueOf = uncurryThis(String.prototype.valueOf);
export const NumberPrototypeValueOf = uncurryThis(Number.prototype.valueOf);
export const BooleanPrototypeValueOf = uncurryThis(Boolean.prototype.valueOf);
export const NumberPrototypeToString = uncurryThis(Number.prototype.toString);

export const NumberCtor = Number;
export const NumberIsFinite = Number.isFinite;
export const NumberIsInteger = Number.isInteger;
export const NumberIsNaN = Number.isNaN;
export const MathMin = Math.min;
export const MathMax = Math.max;
export const MathFloor = Math.floor;

export const RegExpCtor = RegExp;
export const RegExpPrototypeExec = uncurryThis(RegExp.prototype.exec);
export const RegExpPrototypeGetSource = getter(RegExp.prototype, "source");
export const RegExpPrototypeGetFlags = getter(RegExp.prototype, "flags");

export const MapCtor = Map;
export const MapPrototypeGet = uncurryThis(Map.prototype.get);
export const MapPrototypeSet = uncurryThis(Map.prototype.set);
export const MapPrototypeHas = uncurryThis(Map.prototype.has);
export const MapPrototypeDelete = uncurryThis(Map.prototype.delete);
export const MapPrototypeForEach = uncurryThis(Map.prototype.forEach);
export const WeakMapCtor = WeakMap;
export const WeakSetCtor = WeakSet;
export const PromiseCtor = Promise;
export const SetCtor = Set;
export const SetPrototypeHas = uncurryThis(Set.prototype.has);
export const SetPrototypeAdd = uncurryThis(Set.prototype.add);
export const SetPrototypeDelete = uncurryThis(Set.prototype.delete);
export const SetPrototypeForEach = uncurryThis(Set.prototype.forEach);
export const DateCtor = Date;

export const ErrorCtor = Error;
export const TypeErrorCtor = TypeError;
/** The error and typed-array constructors by name, as they were at setup. */
export const ErrorCtors = ObjectFreeze({
  Error,
  EvalError,
  RangeError,
  ReferenceError,
  SyntaxError,
  TypeError,
  URIError,
});
export const TypedArrayCtors = ObjectFreeze({
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
  DataView,
});

export const Uint8ArrayCtor = Uint8Array;
export const Int16ArrayCtor = Int16Array;
export const ArrayBufferIsView = ArrayBuffer.isView;
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
export const TypedArrayPrototypeGetLength = getter(TypedArrayPrototype, "length");
export const TypedArrayPrototypeFill = uncurryThis(TypedArrayPrototype.fill);
const TypedArrayPrototypeGetTag = getter(TypedArrayPrototype, Symbol.toStringTag);
const TypedArrayPrototypeGetBuffer = getter(TypedArrayPrototype, "buffer");
const TypedArrayPrototypeGetByteOffset = getter(TypedArrayPrototype, "byteOffset");
const TypedArrayPrototypeGetByteLength = getter(TypedArrayPrototype, "byteLength");
const DataViewPrototypeGetBuffer = getter(DataView.prototype, "buffer");
const DataViewPrototypeGetByteOffset = getter(DataView.prototype, "byteOffset");
const DataViewPrototypeGetByteLength = getter(DataView.prototype, "byteLength");
const ArrayBufferPrototypeGetByteLength = getter(ArrayBuffer.prototype, "byteLength");
const DatePrototypeGetTime = uncurryThis(Date.prototype.getTime);
export const DatePrototypeToISOString = uncurryThis(Date.prototype.toISOString);

const hasInstance = uncurryThis(FunctionPrototype[Symbol.hasInstance]);

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
