/**
 * Argument folding (DESIGN.md section 7): a facade call's argument array becomes one args object.
 * Leading scalars fill the spec's `positional` names (or, for a lone string, its first required string
 * field); objects merge left to right; a bare `id` fills the only required `*_id` field.
 */
import { z } from "zod";
import type { AnySpec } from "../capabilities/types.ts";

interface Shape {
  positional: readonly string[];
  requiredIdField?: string;
  keys: ReadonlySet<string>;
}

const shapes = new WeakMap<AnySpec, Shape>();

function shapeOf(spec: AnySpec): Shape {
  let shape = shapes.get(spec);
  if (shape) return shape;
  const fields = spec.input instanceof z.ZodObject ? (spec.input.shape as Record<string, z.ZodType>) : {};
  const required = Object.entries(fields).filter(([, field]) => !field.safeParse(undefined).success);
  const firstString = required.find(([, field]) => field instanceof z.ZodString)?.[0];
  const ids = required.map(([key]) => key).filter((key) => key.endsWith("_id"));
  shape = {
    positional: spec.positional ?? (firstString ? [firstString] : []),
    keys: new Set(Object.keys(fields)),
  };
  if (ids.length === 1) shape.requiredIdField = ids[0] as string;
  shapes.set(spec, shape);
  return shape;
}

/** The names a call may pass positionally, in order: the spec's `positional`, or its first required string. */
export function positionalOf(spec: AnySpec): readonly string[] {
  return shapeOf(spec).positional;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype;
}

export type FoldResult = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

export function foldArgs(spec: AnySpec, list: readonly unknown[]): FoldResult {
  const shape = shapeOf(spec);
  const out: Record<string, unknown> = Object.create(null);
  let i = 0;
  for (; i < list.length && !isPlainObject(list[i]); i++) {
    const name = shape.positional[i];
    const value = list[i];
    if (name === undefined) {
      const accepted = shape.positional.length
        ? `positional arguments (${shape.positional.join(", ")})`
        : "no positional arguments";
      return {
        ok: false,
        message: `${spec.name} takes ${accepted}, then an object of named arguments; got ${list.length} values.`,
      };
    }
    if (value !== undefined) out[name] = value;
  }
  for (; i < list.length; i++) {
    const value = list[i];
    if (value === undefined) continue;
    if (!isPlainObject(value)) {
      return { ok: false, message: `${spec.name}: after the named-arguments object, only more objects may follow.` };
    }
    for (const [key, field] of Object.entries(value)) out[key] = field;
  }
  if (shape.requiredIdField && "id" in out && !(shape.requiredIdField in out) && !shape.keys.has("id")) {
    out[shape.requiredIdField] = out.id;
    delete out.id;
  }
  return { ok: true, args: out };
}
