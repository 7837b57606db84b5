// The `crypto` global: getRandomValues and randomUUID, with randomness from the host (its Web Crypto):
// QuickJS has none of its own worth the name. Loaded the first time an action reads `crypto`.
import {
  ArrayBufferIsView,
  defineField,
  ErrorCtor,
  isUint8Array,
  ObjectFreeze,
  TypedArrayPrototypeGetLength,
  TypeErrorCtor,
  typedArrayName,
  Uint8ArrayCtor,
  viewBytes,
} from "nodetool:intrinsics";
import { host } from "nodetool:setup";

const MAX_BYTES = 65536;
const HEX = "0123456789abcdef";
/** The host's `random(n)`: an ArrayBuffer of n random bytes. */
const hostRandom = host.random;

function randomBytes(n) {
  return new Uint8ArrayCtor(hostRandom(n));
}

function getRandomValues(array) {
  const kind = ArrayBufferIsView(array) ? typedArrayName(array) : undefined;
  if (kind === undefined || kind === "Float16Array" || kind === "Float32Array" || kind === "Float64Array") {
    throw new TypeErrorCtor("crypto.getRandomValues: the argument must be an integer typed array.");
  }
  const target = isUint8Array(array) ? array : viewBytes(array);
  const n = TypedArrayPrototypeGetLength(target);
  if (n > MAX_BYTES) {
    const error = new ErrorCtor(`crypto.getRandomValues: at most ${MAX_BYTES} bytes at once, not ${n}.`);
    defineField(error, "name", "QuotaExceededError");
    throw error;
  }
  const bytes = randomBytes(n);
  for (let i = 0; i < n; i++) target[i] = bytes[i];
  return array;
}

function randomUUID() {
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  let out = "";
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out += "-";
    out += HEX[b[i] >> 4] + HEX[b[i] & 15];
  }
  return out;
}

export const crypto = ObjectFreeze({ getRandomValues, randomUUID });
