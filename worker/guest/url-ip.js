// IP addresses and the small text helpers the URL parser shares (url-parse.js): IPv4 in dotted
// decimal, IPv6 parsed and serialised compressed (the longest run of two or more zero pieces as "::").
import {
  append,
  NumberCtor,
  NumberPrototypeToString,
  StringPrototypeCharCodeAt,
  StringPrototypeIncludes,
  StringPrototypeSlice,
} from "nodetool:intrinsics";

export function hexValue(c) {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

export function parseIPv4(host) {
  const parts = splitOn(host, ".");
  if (parts.length === 5 && parts[4] === "") parts.length = 4;
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (let i = 0; i < 4; i++) {
    const part = parts[i];
    if (part === "" || part.length > 3 || !isDigits(part)) return undefined;
    const n = NumberCtor(part);
    if (n > 255) return undefined;
    value = value * 256 + n;
  }
  return `${(value >>> 24) & 255}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

export function parseIPv6(text) {
  const halves = splitOn(text, "::");
  if (halves.length > 2) return undefined;
  const head = halves[0] === "" ? [] : splitOn(halves[0], ":");
  const tail = halves.length === 2 && halves[1] !== "" ? splitOn(halves[1], ":") : [];
  const pieces = [];
  const add = (list) => {
    for (let i = 0; i < list.length; i++) {
      const p = list[i];
      const v4 = i === list.length - 1 && StringPrototypeIncludes(p, ".") ? parseIPv4(p) : undefined;
      if (v4) {
        const n = splitOn(v4, ".");
        append(pieces, NumberCtor(n[0]) * 256 + NumberCtor(n[1]));
        append(pieces, NumberCtor(n[2]) * 256 + NumberCtor(n[3]));
      } else if (p.length >= 1 && p.length <= 4 && isHex(p)) append(pieces, NumberCtor(`0x${p}`));
      else return false;
    }
    return true;
  };
  if (!add(head)) return undefined;
  const headCount = pieces.length;
  if (!add(tail)) return undefined;
  const missing = 8 - pieces.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [];
  for (let i = 0; i < headCount; i++) append(all, pieces[i]);
  for (let i = 0; i < missing; i++) append(all, 0);
  for (let i = headCount; i < pieces.length; i++) append(all, pieces[i]);
  // Serialised with the longest run of two or more zero pieces compressed.
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && all[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
  }
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i === best) {
      out += i === 0 ? "::" : ":";
      i += bestLength - 1;
      continue;
    }
    out += NumberPrototypeToString(all[i], 16) + (i < 7 ? ":" : "");
  }
  return `[${out}]`;
}

export function isDigits(text) {
  for (let i = 0; i < text.length; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return text.length > 0;
}

export function isHex(text) {
  for (let i = 0; i < text.length; i++) if (hexValue(StringPrototypeCharCodeAt(text, i)) < 0) return false;
  return true;
}

export function splitOn(text, separator) {
  const out = [];
  let start = 0;
  for (let i = 0; i + separator.length <= text.length; i++) {
    if (StringPrototypeSlice(text, i, i + separator.length) === separator) {
      append(out, StringPrototypeSlice(text, start, i));
      start = i + separator.length;
      i = start - 1;
    }
  }
  append(out, StringPrototypeSlice(text, start));
  return out;
}
