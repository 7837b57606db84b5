/**
 * Value helpers the executors share: paths into JSON values (`a.b[0]["x y"]`), template filling, and
 * the text form of a value. Pure functions; failures are NodeErrors whose messages name what to fix.
 */
import { templateSlots } from "../../shared/graph/node-types.ts";
import { NodeError } from "./types.ts";

export type PathSegment = string | number;

const IDENT = /^[A-Za-z0-9_$-]+/;

/** `a.b[0]["key"]` -> ["a", "b", 0, "key"]. Empty text is the empty path (the value itself). */
export function parsePath(path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  let i = 0;
  const bad = (why: string) => new NodeError(`Path "${path}" is not valid: ${why} at character ${i + 1}.`);
  while (i < path.length) {
    const c = path[i];
    if (c === "[") {
      const close = path.indexOf("]", i);
      if (close < 0) throw bad("an unclosed [");
      const inner = path.slice(i + 1, close).trim();
      if (/^\d+$/.test(inner)) segments.push(Number(inner));
      else if (/^"(?:[^"\\]|\\.)*"$/.test(inner) || /^'(?:[^'\\]|\\.)*'$/.test(inner)) {
        segments.push(inner.slice(1, -1).replace(/\\(.)/g, "$1"));
      } else throw bad('a bracket must hold an index or a quoted key, e.g. [0] or ["key"]');
      i = close + 1;
    } else if (c === ".") {
      if (i === 0 || i === path.length - 1) throw bad("a dot with no name beside it");
      i++;
      if (path[i] === "." || path[i] === "[") throw bad("a dot with no name after it");
    } else {
      const match = IDENT.exec(path.slice(i));
      if (!match) throw bad(`an unexpected "${c}"`);
      segments.push(match[0]);
      i += match[0].length;
    }
  }
  return segments;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const MISSING: unique symbol = Symbol("missing");

/** The value at `segments`, or MISSING. A string key on a list is not a path into it. */
export function getPath(value: unknown, segments: readonly PathSegment[]): unknown | typeof MISSING {
  let current = value;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      const index = typeof segment === "number" ? segment : /^\d+$/.test(segment) ? Number(segment) : -1;
      if (index < 0 || index >= current.length) return MISSING;
      current = current[index];
    } else if (isRecord(current) && Object.hasOwn(current, String(segment))) {
      current = current[String(segment)];
    } else return MISSING;
  }
  return current;
}

export function isMissing(value: unknown): value is typeof MISSING {
  return value === MISSING;
}

/** A copy of `value` with `next` at `segments`; objects (or lists before an index) are made on the way. */
export function setPath(value: unknown, segments: readonly PathSegment[], next: unknown, path: string): unknown {
  if (segments.length === 0) return next;
  const [head, ...rest] = segments as [PathSegment, ...PathSegment[]];
  if (typeof head === "number") {
    if (value !== undefined && value !== null && !Array.isArray(value)) {
      throw new NodeError(`Cannot set [${head}] in path "${path}": the value there is an object, not a list.`);
    }
    const list = Array.isArray(value) ? [...value] : [];
    if (head > list.length) {
      throw new NodeError(
        `Cannot set [${head}] in path "${path}": the list has ${list.length} items; indexes go up to ${list.length}.`,
      );
    }
    list[head] = setPath(list[head], rest, next, path);
    return list;
  }
  if (Array.isArray(value)) {
    throw new NodeError(`Cannot set "${head}" in path "${path}": the value there is a list; use an index like [0].`);
  }
  const record: Record<string, unknown> = isRecord(value) ? { ...value } : {};
  if (head === "__proto__") throw new NodeError(`Path "${path}" may not name __proto__.`);
  record[head] = setPath(record[head], rest, next, path);
  return record;
}

/** Strings as they are, everything else as compact JSON. */
export function textOf(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
}

/**
 * Fills every `{{name}}` / `{{name.path}}` slot from `values`. A slot without a value fails, naming
 * it, so a typo never silently becomes empty text.
 */
export function fillTemplate(
  template: string,
  values: (name: string) => unknown,
  where: string,
  hint = (name: string) => `Connect a node to input "${name}" or fill it in.`,
): string {
  let out = "";
  let last = 0;
  for (const slot of templateSlotsWithIndex(template)) {
    const base = values(slot.name);
    const found = base === undefined ? MISSING : getPath(base, parsePath(slot.path.replace(/^\./, "")));
    if (isMissing(found)) {
      throw new NodeError(`${where}: slot ${slot.raw} has no value. ${hint(slot.name)}`);
    }
    out += template.slice(last, slot.index) + textOf(found);
    last = slot.index + slot.raw.length;
  }
  return out + template.slice(last);
}

function templateSlotsWithIndex(template: string) {
  let from = 0;
  return templateSlots(template).map((slot) => {
    const index = template.indexOf(slot.raw, from);
    from = index + slot.raw.length;
    return { ...slot, index };
  });
}
