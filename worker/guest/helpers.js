// capabilities(), searchTools(query, max?) (its hits with their input and output JSON Schemas) and
// describe(name?) over what this session mounted. Plain
// guest code, nothing dispatched. Neither this module nor the catalog text is loaded at action start:
// setup evaluates this module on the first call (host `load`), and the catalog and the declarations
// come from the host on first use (most actions never ask, and compiling and parsing both on every
// start would cost more than the rest of the setup).
import { parseJson } from "nodetool:bridge";
import { CapabilityError } from "nodetool:errors";

let loadCatalog = () => [];
let loadSchemas = () => ({});
let catalog;
let loadTypes = () => '{"ok":false,"error":{"code":"capability_unavailable","message":"describe is not available"}}';

export function setCatalogSource(fn) {
  loadCatalog = () => parseJson(fn());
  loadSchemas = (name) => parseJson(fn(name));
}

export function setTypesSource(fn) {
  loadTypes = fn;
}

/** TypeScript declarations of a module, a capability, the globals or the contract (see describe()). */
export function describe(name) {
  const answer = parseJson(loadTypes(name === undefined || name === null ? undefined : String(name)));
  if (answer.ok) return answer.text;
  throw new CapabilityError(answer.error);
}

function rows() {
  catalog ??= loadCatalog();
  return catalog;
}

export function capabilities() {
  const byModule = new Map();
  for (const row of rows()) {
    let entry = byModule.get(row.module);
    if (!entry) {
      entry = { module: row.module, namespace: row.namespace, methods: [] };
      byModule.set(row.module, entry);
    }
    entry.methods.push({ name: row.name, method: row.method, signature: row.signature, description: row.description });
  }
  return [...byModule.values()];
}

export function searchTools(query, max) {
  const limit = Math.min(50, Math.max(1, Math.floor(Number(max ?? 10)) || 10));
  const terms = String(query ?? "")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const scored = [];
  for (const row of rows()) {
    const name = `${row.namespace} ${row.name} ${row.method}`.toLowerCase();
    const text = row.description.toLowerCase();
    let score = terms.length ? 0 : 1;
    for (const term of terms) {
      if (name.includes(term)) score += 3;
      if (text.includes(term)) score += 1;
    }
    if (score > 0) scored.push({ score, row });
  }
  scored.sort((a, b) => b.score - a.score);
  // Each hit's JSON Schemas come from the host for that hit only: the catalog itself stays small.
  return scored.slice(0, limit).map(({ row }) => ({
    name: row.name,
    signature: row.signature,
    description: row.description,
    module: row.module,
    ...loadSchemas(row.name),
  }));
}
