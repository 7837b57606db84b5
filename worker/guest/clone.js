// structuredClone(value): a deep copy by the HTML structured clone rules, for what exists in the
// sandbox: primitives, plain objects and arrays (own enumerable string keys), Date, RegExp, Map, Set,
// ArrayBuffer, typed arrays and DataViews (each over a copy of its buffer), Error objects, and Boolean,
// Number and String wrappers; cycles and shared references are kept. Functions, symbols, promises,
// WeakMap, WeakSet and the like are refused with a DataCloneError. `transfer` is not supported.
// Loaded the first time an action reads `structuredClone`. Builtins come from intrinsics.js.
import {
  ArrayBufferIsView,
  ArrayIsArray,
  BooleanPrototypeValueOf,
  bufferOf,
  DateCtor,
  dateTime,
  defineField,
  ErrorCtor,
  ErrorCtors,
  isArrayBuffer,
  isInstanceOf,
  MapCtor,
  MapPrototypeForEach,
  MapPrototypeGet,
  MapPrototypeSet,
  NumberPrototypeValueOf,
  ObjectCtor,
  ObjectDefineProperty,
  ObjectKeys,
  PromiseCtor,
  RegExpCtor,
  RegExpPrototypeGetFlags,
  RegExpPrototypeGetSource,
  SetCtor,
  SetPrototypeAdd,
  SetPrototypeForEach,
  StringCtor,
  StringPrototypeValueOf,
  TypedArrayCtors,
  TypedArrayPrototypeGetLength,
  typedArrayName,
  Uint8ArrayCtor,
  viewBytes,
  WeakMapCtor,
  WeakSetCtor,
} from "nodetool:intrinsics";

function dataCloneError(what) {
  const error = new ErrorCtor(`structuredClone: ${what} cannot be cloned.`);
  defineField(error, "name", "DataCloneError");
  return error;
}

const UNWRAP = [BooleanPrototypeValueOf, NumberPrototypeValueOf, StringPrototypeValueOf];

/** A primitive wrapper's value (each valueOf throws on anything but its own kind), or undefined. */
function unwrapped(value) {
  for (let i = 0; i < UNWRAP.length; i++) {
    try {
      return { value: UNWRAP[i](value) };
    } catch {}
  }
  return undefined;
}

function copyBytes(bytes) {
  const n = TypedArrayPrototypeGetLength(bytes);
  const out = new Uint8ArrayCtor(n);
  for (let i = 0; i < n; i++) out[i] = bytes[i];
  return out;
}

function clone(value, seen) {
  const type = typeof value;
  if (type === "function") throw dataCloneError("a function");
  if (type === "symbol") throw dataCloneError("a symbol");
  if (value === null || type !== "object") return value;
  const known = MapPrototypeGet(seen, value);
  if (known !== undefined) return known;
  if (isInstanceOf(value, PromiseCtor) || isInstanceOf(value, WeakMapCtor) || isInstanceOf(value, WeakSetCtor)) {
    throw dataCloneError("a Promise, WeakMap or WeakSet");
  }
  const time = dateTime(value);
  if (time !== undefined) return remember(seen, value, new DateCtor(time));
  if (isInstanceOf(value, RegExpCtor)) {
    return remember(seen, value, new RegExpCtor(RegExpPrototypeGetSource(value), RegExpPrototypeGetFlags(value)));
  }
  if (isArrayBuffer(value)) return remember(seen, value, bufferOf(copyBytes(new Uint8ArrayCtor(value))));
  if (ArrayBufferIsView(value)) {
    const bytes = copyBytes(viewBytes(value));
    const kind = typedArrayName(value);
    const View = TypedArrayCtors[kind ?? "DataView"];
    return remember(seen, value, kind === "Uint8Array" ? bytes : new View(bufferOf(bytes)));
  }
  const primitive = unwrapped(value);
  if (primitive) return remember(seen, value, ObjectCtor(primitive.value));
  if (isInstanceOf(value, MapCtor)) {
    const out = remember(seen, value, new MapCtor());
    MapPrototypeForEach(value, (item, key) => MapPrototypeSet(out, clone(key, seen), clone(item, seen)));
    return out;
  }
  if (isInstanceOf(value, SetCtor)) {
    const out = remember(seen, value, new SetCtor());
    SetPrototypeForEach(value, (item) => SetPrototypeAdd(out, clone(item, seen)));
    return out;
  }
  if (isInstanceOf(value, ErrorCtor)) {
    const name = StringCtor(value.name);
    const Kind = ErrorCtors[name] ?? ErrorCtor;
    const out = remember(seen, value, new Kind(StringCtor(value.message)));
    if (typeof value.stack === "string") defineField(out, "stack", value.stack);
    return out;
  }
  const out = remember(seen, value, ArrayIsArray(value) ? [] : {});
  // An array's length is not configurable: only its value may be defined (holes stay holes).
  if (ArrayIsArray(value)) ObjectDefineProperty(out, "length", { value: value.length, writable: true });
  const keys = ObjectKeys(value);
  for (let i = 0; i < keys.length; i++) defineField(out, keys[i], clone(value[keys[i]], seen));
  return out;
}

function remember(seen, from, to) {
  MapPrototypeSet(seen, from, to);
  return to;
}

export function structuredClone(value, options) {
  if (options?.transfer?.length) throw dataCloneError("a transfer list (not supported in the sandbox)");
  return clone(value, new MapCtor());
}
