// The URL parser and serialiser behind url.js, after the WHATWG URL Standard, compact: the special
// schemes (http, https, ws, wss, ftp, file) with their default ports, userinfo, domain hosts
// (lower-cased; non-ASCII labels in punycode, without the full IDNA mapping), IPv4 in dotted decimal
// and IPv6 (compressed when serialised), dot segments, the standard's percent-encode sets, relative
// references against a base, and non-special schemes (opaque paths such as mailto: and data:).
// A URL is a record {scheme, username, password, host, port, path[], opaque, query, fragment}.
import { TextDecoder, TextEncoder } from "nodetool:encoding";
import {
  ArrayPrototypeJoin,
  append,
  bufferOf,
  NumberCtor,
  ObjectCreate,
  StringCtor,
  StringFromCharCode,
  StringPrototypeCharCodeAt,
  StringPrototypeIncludes,
  StringPrototypeSlice,
  StringPrototypeToLowerCase,
  TypeErrorCtor,
  Uint8ArrayCtor,
} from "nodetool:intrinsics";
import { toAsciiLabel } from "nodetool:punycode";
import { hexValue, isDigits, parseIPv4, parseIPv6, splitOn } from "nodetool:url-ip";

/** Special schemes and their default ports (file has none). */
export const SPECIAL = ObjectCreate(null);
SPECIAL["ftp:"] = 21;
SPECIAL["file:"] = null;
SPECIAL["http:"] = 80;
SPECIAL["https:"] = 443;
SPECIAL["ws:"] = 80;
SPECIAL["wss:"] = 443;
const HEX = "0123456789ABCDEF";
const C0 = (c) => c < 0x20 || c > 0x7e;
const FRAGMENT = (c) => C0(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x60;
const QUERY = (c) => C0(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e;
const SPECIAL_QUERY = (c) => QUERY(c) || c === 0x27;
const PATH = (c) => QUERY(c) || c === 0x3f || c === 0x60 || c === 0x7b || c === 0x7d;
const USERINFO = (c) =>
  PATH(c) ||
  c === 0x2f ||
  c === 0x3a ||
  c === 0x3b ||
  c === 0x3d ||
  c === 0x40 ||
  (c >= 0x5b && c <= 0x5e) ||
  c === 0x7c;
export const FORM = (c) =>
  !(
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x2a ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x5f
  );
const FORBIDDEN_HOST = " #%/:<>?@[\\]^|";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function invalidUrl(input) {
  return new TypeErrorCtor(`Invalid URL: ${StringCtor(input)}`);
}

/** Percent-encodes each UTF-8 byte of `text` that `set` says must be (space as "+" in a form). */
export function percentEncode(text, set, form) {
  const bytes = encoder.encode(text);
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (form && b === 0x20) out += "+";
    else if (set(b)) out += `%${HEX[b >> 4]}${HEX[b & 15]}`;
    else out += StringFromCharCode(b);
  }
  return out;
}

/** Percent-decodes `text` as UTF-8 ("+" as a space in a form). */
export function percentDecode(text, form) {
  const bytes = encoder.encode(text);
  const out = new Uint8ArrayCtor(bytes.length);
  let o = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    const h = b === 0x25 && i + 2 < bytes.length ? hexValue(bytes[i + 1]) * 16 + hexValue(bytes[i + 2]) : -1;
    if (h >= 0 && hexValue(bytes[i + 1]) >= 0 && hexValue(bytes[i + 2]) >= 0) {
      out[o++] = h;
      i += 2;
    } else out[o++] = form && b === 0x2b ? 0x20 : b;
  }
  return decoder.decode(new Uint8ArrayCtor(bufferOf(out), 0, o));
}

function lower(text) {
  return StringPrototypeToLowerCase(text);
}

function parseHost(text, special) {
  if (text[0] === "[") {
    if (text[text.length - 1] !== "]") return undefined;
    return parseIPv6(StringPrototypeSlice(text, 1, -1));
  }
  if (!special) {
    for (let i = 0; i < text.length; i++)
      if (text[i] !== "%" && StringPrototypeIncludes(FORBIDDEN_HOST, text[i])) return undefined;
    return percentEncode(text, C0);
  }
  const domain = lower(percentDecode(text, false));
  if (domain === "") return undefined;
  const labels = splitOn(domain, ".");
  for (let i = 0; i < labels.length; i++) {
    for (let k = 0; k < labels[i].length; k++) {
      const c = StringPrototypeCharCodeAt(labels[i], k);
      if (c <= 0x20 || c === 0x7f || StringPrototypeIncludes(FORBIDDEN_HOST, labels[i][k])) return undefined;
    }
    labels[i] = toAsciiLabel(labels[i]);
  }
  const ascii = ArrayPrototypeJoin(labels, ".");
  const last = labels[labels.length - 1] === "" ? labels[labels.length - 2] : labels[labels.length - 1];
  if (last !== undefined && isDigits(last)) return parseIPv4(ascii);
  return ascii;
}

/** The index of the first of `chars` in `text` at or after `from`, or text.length. */
function indexOfAny(text, chars, from) {
  for (let i = from; i < text.length; i++) if (StringPrototypeIncludes(chars, text[i])) return i;
  return text.length;
}

/** The path's segments with dot segments resolved, each percent-encoded. */
function normalisePath(segments, special) {
  const out = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const name = lower(segment);
    const last = i === segments.length - 1;
    if (name === ".." || name === ".%2e" || name === "%2e." || name === "%2e%2e") {
      if (out.length > 0) out.length--;
      if (last) append(out, "");
    } else if (name === "." || name === "%2e") {
      if (last) append(out, "");
    } else append(out, percentEncode(segment, PATH));
  }
  if (out.length === 0 && special) append(out, "");
  return out;
}

function cleaned(input) {
  let text = StringCtor(input);
  let start = 0;
  let end = text.length;
  while (start < end && StringPrototypeCharCodeAt(text, start) <= 0x20) start++;
  while (end > start && StringPrototypeCharCodeAt(text, end - 1) <= 0x20) end--;
  text = StringPrototypeSlice(text, start, end);
  let out = "";
  for (let i = 0; i < text.length; i++) if (text[i] !== "\t" && text[i] !== "\n" && text[i] !== "\r") out += text[i];
  return out;
}

function isScheme(candidate) {
  for (let i = 0; i < candidate.length - 1; i++) {
    const c = StringPrototypeCharCodeAt(candidate, i);
    const letter = c >= 0x61 && c <= 0x7a;
    if (!(letter || (i > 0 && ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e)))) return false;
  }
  return true;
}

function splitPath(rest, special) {
  const parts = [];
  if (rest === "") return parts;
  let start = rest[0] === "/" || (special && rest[0] === "\\") ? 1 : 0;
  for (let i = start; i <= rest.length; i++) {
    if (i === rest.length || rest[i] === "/" || (special && rest[i] === "\\")) {
      append(parts, StringPrototypeSlice(rest, start, i));
      start = i + 1;
    }
  }
  return parts;
}

function lastIndex(text, char) {
  for (let i = text.length - 1; i >= 0; i--) if (text[i] === char) return i;
  return -1;
}

function authority(record, text, special) {
  const at = lastIndex(text, "@");
  if (at >= 0) {
    const info = StringPrototypeSlice(text, 0, at);
    const split = indexOfAny(info, ":", 0);
    record.username = percentEncode(StringPrototypeSlice(info, 0, split), USERINFO);
    record.password = split < info.length ? percentEncode(StringPrototypeSlice(info, split + 1), USERINFO) : "";
    text = StringPrototypeSlice(text, at + 1);
  }
  const colon = lastIndex(text, ":");
  let hostText = text;
  if (colon > lastIndex(text, "]")) {
    const port = StringPrototypeSlice(text, colon + 1);
    hostText = StringPrototypeSlice(text, 0, colon);
    if (port !== "") {
      if (!isDigits(port) || NumberCtor(port) > 65535) return false;
      record.port = NumberCtor(port) === SPECIAL[record.scheme] ? null : NumberCtor(port);
    }
  }
  if (hostText === "") {
    if (special && record.scheme !== "file:") return false;
    record.host = "";
    return true;
  }
  const host = parseHost(hostText, special);
  if (host === undefined) return false;
  record.host = record.scheme === "file:" && host === "localhost" ? "" : host;
  return true;
}

function copyPath(path) {
  const out = [];
  for (let i = 0; i < path.length; i++) append(out, path[i]);
  return out;
}

/** Parses `input` (against `base`, a parsed record) into a record; undefined when it is not a URL. */
export function parseUrl(input, base) {
  const text = cleaned(input);
  const record = {
    scheme: "",
    username: "",
    password: "",
    host: null,
    port: null,
    path: [],
    opaque: null,
    query: null,
    fragment: null,
  };
  let rest = text;
  const end = indexOfAny(text, ":/?#", 0);
  const scheme = text[end] === ":" ? lower(StringPrototypeSlice(text, 0, end + 1)) : "";
  const hasScheme = scheme.length > 1 && isScheme(scheme);
  if (hasScheme) {
    record.scheme = scheme;
    rest = StringPrototypeSlice(text, end + 1);
  } else if (!base) return undefined;
  else record.scheme = base.scheme;
  const special = record.scheme in SPECIAL;
  const slash = (c) => c === "/" || (special && c === "\\");
  const hashAt = indexOfAny(rest, "#", 0);
  if (hashAt < rest.length) record.fragment = percentEncode(StringPrototypeSlice(rest, hashAt + 1), FRAGMENT);
  rest = StringPrototypeSlice(rest, 0, hashAt);
  if (!hasScheme && base.opaque !== null) {
    if (text[0] !== "#") return undefined;
    record.opaque = base.opaque;
    record.query = base.query;
    return record;
  }
  const opaque = hasScheme && !special && !slash(rest[0]);
  const queryAt = opaque ? rest.length : indexOfAny(rest, "?", 0);
  if (queryAt < rest.length)
    record.query = percentEncode(StringPrototypeSlice(rest, queryAt + 1), special ? SPECIAL_QUERY : QUERY);
  if (opaque) {
    const q = indexOfAny(rest, "?", 0);
    if (q < rest.length) record.query = percentEncode(StringPrototypeSlice(rest, q + 1), QUERY);
    record.opaque = percentEncode(StringPrototypeSlice(rest, 0, q), C0);
    return record;
  }
  rest = StringPrototypeSlice(rest, 0, queryAt);
  // With a scheme of its own (unless it is the base's special scheme and no slash follows), or with
  // two slashes: an authority comes next. Otherwise a reference relative to the base.
  const sameSpecial = hasScheme && special && base && base.scheme === record.scheme && !slash(rest[0]);
  const absolute = (hasScheme && !sameSpecial) || (slash(rest[0]) && slash(rest[1]));
  if (absolute) {
    if (slash(rest[0]) && slash(rest[1])) rest = StringPrototypeSlice(rest, 2);
    if (special && record.scheme !== "file:") while (slash(rest[0])) rest = StringPrototypeSlice(rest, 1);
    const fileWithoutHost = record.scheme === "file:" && !(text[end + 1] === "/" && text[end + 2] === "/") && hasScheme;
    if (fileWithoutHost) record.host = "";
    else if (special || rest !== "" || (slash(text[end + 1]) && slash(text[end + 2]))) {
      const stop = indexOfAny(rest, special ? "/\\" : "/", 0);
      if (!authority(record, StringPrototypeSlice(rest, 0, stop), special)) return undefined;
      rest = StringPrototypeSlice(rest, stop);
    }
    record.path = normalisePath(splitPath(rest, special), special);
    return record;
  }
  record.username = base.username;
  record.password = base.password;
  record.host = base.host;
  record.port = base.port;
  if (rest === "") {
    record.path = copyPath(base.path);
    if (queryAt >= rest.length && record.query === null && text[0] !== "?") record.query = base.query;
    return record;
  }
  if (slash(rest[0])) {
    record.path = normalisePath(splitPath(rest, special), special);
    return record;
  }
  const merged = copyPath(base.path);
  if (merged.length > 0) merged.length--;
  const parts = splitPath(`/${rest}`, special);
  for (let i = 0; i < parts.length; i++) append(merged, parts[i]);
  record.path = normalisePath(merged, special);
  return record;
}

export function pathOf(record) {
  return (
    record.opaque ?? (record.host !== null || record.path.length ? `/${ArrayPrototypeJoin(record.path, "/")}` : "")
  );
}

export function serialiseUrl(record, withFragment = true) {
  let out = record.scheme;
  if (record.host !== null) {
    out += "//";
    if (record.username || record.password) out += `${record.username}${record.password ? `:${record.password}` : ""}@`;
    out += record.host + (record.port === null ? "" : `:${record.port}`);
  } else if (record.opaque === null && record.path.length > 1 && record.path[0] === "") out += "/.";
  out += pathOf(record);
  if (record.query !== null) out += `?${record.query}`;
  if (withFragment && record.fragment !== null) out += `#${record.fragment}`;
  return out;
}
