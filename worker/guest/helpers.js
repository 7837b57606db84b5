// capabilities(), searchTools(query, max?) (its hits with their input and output JSON Schemas) and
// describe(name?) over what this session mounted. Plain guest code, nothing dispatched. Neither this
// module nor the catalog text is loaded at action start: setup evaluates this module on the first call
// (host `load`), and the catalog and the declarations come from the host on first use (most actions
// never ask, and compiling and parsing both on every start would cost more than the rest of the
// setup). Builtins come from intrinsics.js.
import { CapabilityError } from "nodetool:errors";
import {
  ArrayPrototypeSort,
  append,
  JSONParse,
  MapCtor,
  MapPrototypeGet,
  MapPrototypeSet,
  MathFloor,
  MathMax,
  MathMin,
  mapValues,
  NumberCtor,
  StringCtor,
  StringPrototypeCharCodeAt,
  StringPrototypeIncludes,
  StringPrototypeSlice,
  StringPrototypeToLowerCase,
} from "nodetool:intrinsics";

let loadCatalog = () => [];
let loadSchemas = () => ({});
let catalog;
let loadTypes = () => '{"ok":false,"error":{"code":"capability_unavailable","message":"describe is not available"}}';

export function setCatalogSource(fn) {
  loadCatalog = () => JSONParse(fn());
  loadSchemas = (name) => JSONParse(fn(name));
}

export function setTypesSource(fn) {
  loadTypes = fn;
}

/** TypeScript declarations of a module, a capability, the globals or the contract (see describe()). */
export function describe(name) {
  const answer = JSONParse(loadTypes(name === undefined || name === null ? undefined : StringCtor(name)));
  if (answer.ok) return answer.text;
  throw new CapabilityError(answer.error);
}

function rows() {
  catalog ??= loadCatalog();
  return catalog;
}

export function capabilities() {
  const byModule = new MapCtor();
  const all = rows();
  for (let i = 0; i < all.length; i++) {
    const row = all[i];
    let entry = MapPrototypeGet(byModule, row.module);
    if (!entry) {
      entry = { module: row.module, namespace: row.namespace, methods: [] };
      MapPrototypeSet(byModule, row.module, entry);
    }
    append(entry.methods, {
      name: row.name,
      method: row.method,
      signature: row.signature,
      description: row.description,
    });
  }
  return mapValues(byModule);
}

/** Lower-case runs of letters and digits: what `split(/[^a-z0-9]+/)` gives, without a RegExp. */
function words(text) {
  const out = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? StringPrototypeCharCodeAt(text, i) : 0;
    const inWord = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (inWord && start < 0) start = i;
    else if (!inWord && start >= 0) {
      append(out, StringPrototypeSlice(text, start, i));
      start = -1;
    }
  }
  return out;
}

export function searchTools(query, max) {
  const limit = MathMin(50, MathMax(1, MathFloor(NumberCtor(max ?? 10)) || 10));
  const terms = words(StringPrototypeToLowerCase(StringCtor(query ?? "")));
  const scored = [];
  const all = rows();
  for (let i = 0; i < all.length; i++) {
    const row = all[i];
    const name = StringPrototypeToLowerCase(`${row.namespace} ${row.name} ${row.method}`);
    const text = StringPrototypeToLowerCase(row.description);
    let score = terms.length ? 0 : 1;
    for (let t = 0; t < terms.length; t++) {
      if (StringPrototypeIncludes(name, terms[t])) score += 3;
      if (StringPrototypeIncludes(text, terms[t])) score += 1;
    }
    if (score > 0) append(scored, { score, row });
  }
  ArrayPrototypeSort(scored, (a, b) => b.score - a.score);
  const out = [];
  for (let i = 0; i < scored.length && i < limit; i++) {
    const row = scored[i].row;
    // Each hit's JSON Schemas come from the host for that hit only: the catalog itself stays small.
    append(out, {
      name: row.name,
      signature: row.signature,
      description: row.description,
      module: row.module,
      ...loadSchemas(row.name),
    });
  }
  return out;
}
