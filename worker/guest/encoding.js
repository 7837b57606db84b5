// TextEncoder and TextDecoder (UTF-8, as the Encoding Standard's "utf-8"), atob and btoa (forgiving
// base64). Plain computation: loaded by setup the first time an action reads one of these globals.
// Builtins come from intrinsics.js.

import {
  ArrayBufferIsView,
  ArrayPrototypeJoin,
  append,
  defineField,
  ErrorCtor,
  isArrayBuffer,
  isUint8Array,
  StringCtor,
  StringFromCharCode,
  StringPrototypeCharCodeAt,
  StringPrototypeToLowerCase,
  TypedArrayPrototypeGetLength,
  TypeErrorCtor,
  Uint8ArrayCtor,
  viewBytes,
} from "nodetool:intrinsics";
import { base64ToBytes, bytesToBase64 } from "nodetool:values";

const REPLACEMENT = 0xfffd;

/** The UTF-8 bytes of `text` (lone surrogates become U+FFFD, as TextEncoder does). */
function utf8(text) {
  const out = new Uint8ArrayCtor(text.length * 3);
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    let c = StringPrototypeCharCodeAt(text, i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = StringPrototypeCharCodeAt(text, i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else c = REPLACEMENT;
    } else if (c >= 0xd800 && c <= 0xdfff) c = REPLACEMENT;
    if (c < 0x80) out[o++] = c;
    else if (c < 0x800) {
      out[o++] = 0xc0 | (c >> 6);
      out[o++] = 0x80 | (c & 63);
    } else if (c < 0x10000) {
      out[o++] = 0xe0 | (c >> 12);
      out[o++] = 0x80 | ((c >> 6) & 63);
      out[o++] = 0x80 | (c & 63);
    } else {
      out[o++] = 0xf0 | (c >> 18);
      out[o++] = 0x80 | ((c >> 12) & 63);
      out[o++] = 0x80 | ((c >> 6) & 63);
      out[o++] = 0x80 | (c & 63);
    }
  }
  const exact = new Uint8ArrayCtor(o);
  for (let i = 0; i < o; i++) exact[i] = out[i];
  return exact;
}

export class TextEncoder {
  get encoding() {
    return "utf-8";
  }
  encode(input = "") {
    return utf8(StringCtor(input));
  }
  encodeInto(input, destination) {
    const bytes = utf8(StringCtor(input));
    const room = TypedArrayPrototypeGetLength(destination);
    let written = 0;
    let read = 0;
    // Whole characters only: stop before one whose bytes do not all fit.
    const text = StringCtor(input);
    for (let i = 0; i < text.length; i++) {
      const c = StringPrototypeCharCodeAt(text, i);
      const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length;
      const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
      if (written + size > room) break;
      for (let k = 0; k < size; k++) destination[written + k] = bytes[written + k];
      written += size;
      read += pair && size === 4 ? 2 : 1;
      if (pair && size === 4) i++;
    }
    return { read, written };
  }
}

function bytesOf(input) {
  if (input === undefined) return new Uint8ArrayCtor(0);
  if (isUint8Array(input)) return input;
  if (isArrayBuffer(input)) return new Uint8ArrayCtor(input);
  if (ArrayBufferIsView(input)) return viewBytes(input);
  throw new TypeErrorCtor("TextDecoder.decode: the input must be an ArrayBuffer or a view of one.");
}

export class TextDecoder {
  #fatal;
  #ignoreBOM;
  constructor(label = "utf-8", options = {}) {
    const name = StringPrototypeToLowerCase(StringCtor(label));
    if (name !== "utf-8" && name !== "utf8" && name !== "unicode-1-1-utf-8") {
      throw new ErrorCtor(`TextDecoder: only utf-8 is available in the sandbox, not "${StringCtor(label)}".`);
    }
    this.#fatal = !!options?.fatal;
    this.#ignoreBOM = !!options?.ignoreBOM;
  }
  get encoding() {
    return "utf-8";
  }
  get fatal() {
    return this.#fatal;
  }
  get ignoreBOM() {
    return this.#ignoreBOM;
  }
  decode(input) {
    const bytes = bytesOf(input);
    const n = TypedArrayPrototypeGetLength(bytes);
    const parts = [];
    let chunk = "";
    let i = 0;
    if (!this.#ignoreBOM && n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
    while (i < n) {
      const c = decodeAt(bytes, i, n);
      if (c.point < 0) {
        if (this.#fatal) throw new TypeErrorCtor("TextDecoder: the input is not valid UTF-8.");
        chunk += StringFromCharCode(REPLACEMENT);
      } else if (c.point >= 0x10000) {
        const v = c.point - 0x10000;
        chunk += StringFromCharCode(0xd800 + (v >> 10), 0xdc00 + (v & 1023));
      } else chunk += StringFromCharCode(c.point);
      i += c.length;
      if (chunk.length >= 4096) {
        append(parts, chunk);
        chunk = "";
      }
    }
    append(parts, chunk);
    return ArrayPrototypeJoin(parts, "");
  }
}

/** The code point at `i` and how many bytes it took; point -1 for a malformed sequence (maximal subpart). */
function decodeAt(bytes, i, n) {
  const b = bytes[i];
  const out = { point: -1, length: 1 };
  if (b < 0x80) {
    out.point = b;
    return out;
  }
  let need = 0;
  let point = 0;
  let low = 0x80;
  let high = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) {
    need = 1;
    point = b & 31;
  } else if (b >= 0xe0 && b <= 0xef) {
    need = 2;
    point = b & 15;
    if (b === 0xe0) low = 0xa0;
    if (b === 0xed) high = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    need = 3;
    point = b & 7;
    if (b === 0xf0) low = 0x90;
    if (b === 0xf4) high = 0x8f;
  } else return out;
  for (let k = 1; k <= need; k++) {
    const next = i + k < n ? bytes[i + k] : -1;
    if (next < low || next > high) {
      out.length = k;
      return out;
    }
    point = (point << 6) | (next & 63);
    low = 0x80;
    high = 0xbf;
  }
  out.point = point;
  out.length = need + 1;
  return out;
}

function invalidCharacter(message) {
  const error = new ErrorCtor(message);
  defineField(error, "name", "InvalidCharacterError");
  return error;
}

/** btoa: each character of `text` (which must be below U+0100) as one byte, in base64. */
export function btoa(text) {
  const s = StringCtor(text);
  const bytes = new Uint8ArrayCtor(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = StringPrototypeCharCodeAt(s, i);
    if (c > 255) throw invalidCharacter("btoa: the string has a character outside Latin-1 (encode it as UTF-8 first).");
    bytes[i] = c;
  }
  return bytesToBase64(bytes);
}

/** atob: base64 (ASCII whitespace ignored, padding optional) to a string of one character per byte. */
export function atob(data) {
  const s = StringCtor(data);
  let clean = "";
  for (let i = 0; i < s.length; i++) {
    const c = StringPrototypeCharCodeAt(s, i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 12 && c !== 13) clean += s[i];
  }
  if (clean.length % 4 === 1) throw invalidCharacter("atob: the string is not valid base64.");
  let bytes;
  try {
    bytes = base64ToBytes(clean);
  } catch {
    throw invalidCharacter("atob: the string is not valid base64.");
  }
  const parts = [];
  let chunk = "";
  const n = TypedArrayPrototypeGetLength(bytes);
  for (let i = 0; i < n; i++) {
    chunk += StringFromCharCode(bytes[i]);
    if (chunk.length >= 4096) {
      append(parts, chunk);
      chunk = "";
    }
  }
  append(parts, chunk);
  return ArrayPrototypeJoin(parts, "");
}
