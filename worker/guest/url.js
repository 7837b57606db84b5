// URL and URLSearchParams (the parsing lives in url-parse.js). `url.searchParams` is live: changing
// it changes `url.search` and the other way round. Loaded the first time an action reads `URL` or
// `URLSearchParams`. Builtins come from intrinsics.js.

import {
  ArrayFrom,
  ArrayIsArray,
  ArrayPrototypeJoin,
  ArrayPrototypeSort,
  append,
  FunctionPrototypeCall,
  NumberCtor,
  ObjectKeys,
  StringCtor,
  StringPrototypeCharCodeAt,
  StringPrototypeSlice,
  SymbolIterator,
  TypeErrorCtor,
} from "nodetool:intrinsics";
import {
  FORM,
  invalidUrl,
  parseUrl,
  pathOf,
  percentDecode,
  percentEncode,
  SPECIAL,
  serialiseUrl,
} from "nodetool:url-parse";

function isPort(text) {
  if (text.length === 0 || text.length > 5) return false;
  for (let i = 0; i < text.length; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return NumberCtor(text) <= 65535;
}

function parsePairs(text) {
  const out = [];
  const query = text[0] === "?" ? StringPrototypeSlice(text, 1) : text;
  let start = 0;
  for (let i = 0; i <= query.length; i++) {
    if (i < query.length && query[i] !== "&") continue;
    const piece = StringPrototypeSlice(query, start, i);
    start = i + 1;
    if (piece === "") continue;
    let eq = 0;
    while (eq < piece.length && piece[eq] !== "=") eq++;
    append(out, [
      percentDecode(StringPrototypeSlice(piece, 0, eq), true),
      percentDecode(StringPrototypeSlice(piece, eq + 1), true),
    ]);
  }
  return out;
}

export class URLSearchParams {
  #pairs = [];
  #url;
  static #isParams(value) {
    try {
      return ArrayIsArray(value.#pairs);
    } catch {
      return false;
    }
  }
  constructor(init = "") {
    if (URLSearchParams.#isParams(init)) {
      for (let i = 0; i < init.#pairs.length; i++) append(this.#pairs, [init.#pairs[i][0], init.#pairs[i][1]]);
    } else if (init !== null && typeof init === "object") {
      const list = ArrayIsArray(init) ? init : ArrayFrom(init);
      for (let i = 0; i < list.length; i++) {
        const pair = ArrayIsArray(list[i]) ? list[i] : ArrayFrom(list[i]);
        if (pair.length !== 2) throw new TypeErrorCtor("URLSearchParams: each pair must have exactly two items.");
        append(this.#pairs, [StringCtor(pair[0]), StringCtor(pair[1])]);
      }
      if (!ArrayIsArray(init) && list.length === 0) {
        const keys = ObjectKeys(init);
        for (let i = 0; i < keys.length; i++) append(this.#pairs, [keys[i], StringCtor(init[keys[i]])]);
      }
    } else this.#pairs = parsePairs(StringCtor(init));
  }
  /** Links these parameters to a URL record (url.searchParams). */
  static _linked(url, record) {
    const params = new URLSearchParams(record.query ?? "");
    params.#url = { url, record };
    return params;
  }
  _reset(query) {
    this.#pairs = parsePairs(query ?? "");
  }
  #update() {
    if (!this.#url) return;
    const text = this.#serialised();
    this.#url.record.query = text === "" ? null : text;
  }
  get size() {
    return this.#pairs.length;
  }
  append(name, value) {
    append(this.#pairs, [StringCtor(name), StringCtor(value)]);
    this.#update();
  }
  delete(name, value) {
    const kept = [];
    for (let i = 0; i < this.#pairs.length; i++) {
      const pair = this.#pairs[i];
      if (!(pair[0] === StringCtor(name) && (value === undefined || pair[1] === StringCtor(value)))) append(kept, pair);
    }
    this.#pairs = kept;
    this.#update();
  }
  get(name) {
    for (let i = 0; i < this.#pairs.length; i++) if (this.#pairs[i][0] === StringCtor(name)) return this.#pairs[i][1];
    return null;
  }
  getAll(name) {
    const out = [];
    for (let i = 0; i < this.#pairs.length; i++)
      if (this.#pairs[i][0] === StringCtor(name)) append(out, this.#pairs[i][1]);
    return out;
  }
  has(name, value) {
    for (let i = 0; i < this.#pairs.length; i++) {
      if (this.#pairs[i][0] === StringCtor(name) && (value === undefined || this.#pairs[i][1] === StringCtor(value)))
        return true;
    }
    return false;
  }
  set(name, value) {
    const key = StringCtor(name);
    const kept = [];
    let done = false;
    for (let i = 0; i < this.#pairs.length; i++) {
      if (this.#pairs[i][0] !== key) append(kept, this.#pairs[i]);
      else if (!done) {
        append(kept, [key, StringCtor(value)]);
        done = true;
      }
    }
    if (!done) append(kept, [key, StringCtor(value)]);
    this.#pairs = kept;
    this.#update();
  }
  sort() {
    // Stable by name in UTF-16 code units (Array.prototype.sort is stable).
    ArrayPrototypeSort(this.#pairs, (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.#update();
  }
  forEach(callback, thisArg) {
    for (let i = 0; i < this.#pairs.length; i++) {
      FunctionPrototypeCall(callback, thisArg, this.#pairs[i][1], this.#pairs[i][0], this);
    }
  }
  *entries() {
    for (let i = 0; i < this.#pairs.length; i++) yield [this.#pairs[i][0], this.#pairs[i][1]];
  }
  *keys() {
    for (let i = 0; i < this.#pairs.length; i++) yield this.#pairs[i][0];
  }
  *values() {
    for (let i = 0; i < this.#pairs.length; i++) yield this.#pairs[i][1];
  }
  [SymbolIterator]() {
    return this.#pairsOneByOne();
  }
  *#pairsOneByOne() {
    for (let i = 0; i < this.#pairs.length; i++) yield [this.#pairs[i][0], this.#pairs[i][1]];
  }
  toString() {
    return this.#serialised();
  }
  #serialised() {
    const parts = [];
    for (let i = 0; i < this.#pairs.length; i++) {
      append(parts, `${percentEncode(this.#pairs[i][0], FORM, true)}=${percentEncode(this.#pairs[i][1], FORM, true)}`);
    }
    return ArrayPrototypeJoin(parts, "&");
  }
}

export class URL {
  #record;
  #params;
  constructor(url, base) {
    const baseRecord = base === undefined ? undefined : parseUrl(StringCtor(base));
    if (base !== undefined && !baseRecord) throw invalidUrl(base);
    const record = parseUrl(StringCtor(url), baseRecord);
    if (!record) throw invalidUrl(url);
    this.#record = record;
    this.#params = URLSearchParams._linked(this, record);
  }
  static canParse(url, base) {
    try {
      new URL(url, base);
      return true;
    } catch {
      return false;
    }
  }
  static parse(url, base) {
    try {
      return new URL(url, base);
    } catch {
      return null;
    }
  }
  #replace(record) {
    this.#record = record;
    this.#params = URLSearchParams._linked(this, record);
  }
  get href() {
    return serialiseUrl(this.#record);
  }
  set href(value) {
    const record = parseUrl(StringCtor(value));
    if (!record) throw invalidUrl(value);
    this.#replace(record);
  }
  get origin() {
    const r = this.#record;
    if (!(r.scheme in SPECIAL) || r.scheme === "file:") return "null";
    return `${r.scheme}//${r.host}${r.port === null ? "" : `:${r.port}`}`;
  }
  get protocol() {
    return this.#record.scheme;
  }
  get username() {
    return this.#record.username;
  }
  get password() {
    return this.#record.password;
  }
  get host() {
    const r = this.#record;
    return r.host === null ? "" : r.host + (r.port === null ? "" : `:${r.port}`);
  }
  get hostname() {
    return this.#record.host ?? "";
  }
  get port() {
    return this.#record.port === null ? "" : StringCtor(this.#record.port);
  }
  get pathname() {
    return pathOf(this.#record);
  }
  get search() {
    const q = this.#record.query;
    return q === null || q === "" ? "" : `?${q}`;
  }
  set search(value) {
    const text = StringCtor(value);
    const probe = parseUrl(`?${text[0] === "?" ? StringPrototypeSlice(text, 1) : text}`, this.#record);
    this.#record.query = text === "" ? null : (probe?.query ?? null);
    this.#params._reset(this.#record.query);
  }
  get searchParams() {
    return this.#params;
  }
  get hash() {
    const f = this.#record.fragment;
    return f === null || f === "" ? "" : `#${f}`;
  }
  set hash(value) {
    const text = StringCtor(value);
    const probe = parseUrl(`#${text[0] === "#" ? StringPrototypeSlice(text, 1) : text}`, this.#record);
    this.#record.fragment = text === "" ? null : (probe?.fragment ?? null);
  }
  set pathname(value) {
    if (this.#record.opaque !== null) return;
    const text = StringCtor(value);
    const path = text[0] === "/" || text[0] === "\\" ? text : `/${text}`;
    const probe = parseUrl(path, { ...this.#record, path: [], query: null, fragment: null });
    if (probe) this.#record.path = probe.path;
  }
  set port(value) {
    const text = StringCtor(value);
    if (this.#record.host === null || this.#record.host === "" || this.#record.scheme === "file:") return;
    if (text === "") this.#record.port = null;
    else if (isPort(text))
      this.#record.port = NumberCtor(text) === SPECIAL[this.#record.scheme] ? null : NumberCtor(text);
  }
  toString() {
    return this.href;
  }
  toJSON() {
    return this.href;
  }
}
