// The builtins the sandbox's own guest code uses, copied when the setup module is evaluated: before any
// action runs. Only the values are copied here, in as few tokens as possible (every runtime compiles
// this again before its action arrives): each row names an object, the members to copy off it, and the
// accessors whose getter to copy. intrinsics.js turns these copies into the named, uncurried builtins
// the other modules import; it is evaluated on first use, possibly after the action has replaced or
// poisoned any global or prototype, so it reads only what was copied here (tests/hostile/tamper.test.ts
// replaces every member named in these rows in turn, before the sandbox's modules first load).
// Part of the setup module (guest-sources.ts): its top-level names must not clash with setup.js's.

const FunctionPrototype = Function.prototype;
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const describeOwn = Object.getOwnPropertyDescriptor;
const getter = (object, key) => describeOwn(object, key).get;
const table = () => Object.create(null);

/** `uncurryThis(Array.prototype.push)(list, x)`: bound through the copied `call`, looks nothing up. */
export const uncurryThis = FunctionPrototype.bind.bind(FunctionPrototype.call);

const ROWS = {
  Globals: [
    globalThis,
    "Object Array String Number Boolean RegExp Map Set WeakMap WeakSet Promise Date Proxy Reflect JSON Math " +
      "ArrayBuffer DataView Error EvalError RangeError ReferenceError SyntaxError TypeError URIError Int8Array " +
      "Uint8Array Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float32Array Float64Array " +
      "BigInt64Array BigUint64Array",
  ],
  Object: [Object, "keys defineProperty freeze create setPrototypeOf"],
  Array: [Array, "isArray from"],
  ArrayPrototype: [Array.prototype, "push join shift sort"],
  String: [String, "fromCharCode"],
  StringPrototype: [String.prototype, "slice charCodeAt includes toLowerCase valueOf"],
  Number: [Number, "isFinite isNaN"],
  NumberPrototype: [Number.prototype, "valueOf toString"],
  BooleanPrototype: [Boolean.prototype, "valueOf"],
  Math: [Math, "min max floor"],
  JSON: [JSON, "parse stringify"],
  Reflect: [Reflect, "get"],
  RegExpPrototype: [RegExp.prototype, "exec", "source flags"],
  MapPrototype: [Map.prototype, "get set has delete forEach"],
  SetPrototype: [Set.prototype, "has add delete forEach"],
  ArrayBuffer: [ArrayBuffer, "isView"],
  ArrayBufferPrototype: [ArrayBuffer.prototype, "", "byteLength"],
  TypedArrayPrototype: [TypedArrayPrototype, "fill", "length buffer byteOffset byteLength"],
  DataViewPrototype: [DataView.prototype, "", "buffer byteOffset byteLength"],
  DatePrototype: [Date.prototype, "getTime toISOString"],
  FunctionPrototype: [FunctionPrototype, "call"],
};

/** Row name -> a null-prototype table of the copied members (an accessor's getter as `get_<name>`). */
export const captured = table();
for (const row of Object.keys(ROWS)) {
  const [object, members, accessors = ""] = ROWS[row];
  const copies = table();
  for (const name of members.split(" ")) if (name) copies[name] = object[name];
  for (const name of accessors.split(" ")) if (name) copies[`get_${name}`] = getter(object, name);
  captured[row] = Object.freeze(copies);
}
captured.Global = globalThis;
captured.Symbol = Object.freeze({ iterator: Symbol.iterator });
captured.FunctionPrototypeHasInstance = FunctionPrototype[Symbol.hasInstance];
captured.TypedArrayPrototypeGetTag = getter(TypedArrayPrototype, Symbol.toStringTag);
Object.freeze(captured);
