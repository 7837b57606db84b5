/**
 * Node-type metadata: what each node type of a workflow graph takes and gives. Pure data plus tiny
 * pure helpers, no Node or DOM APIs (shared/ runs anywhere). The editor draws handles from it; the
 * engine (server-bridge/engine) attaches one executor per id and never changes this shape.
 *
 * Values flow along edges from an output handle (`sourceHandle`) to an input handle (`targetHandle`).
 * An input's value is, in order: the value on its incoming edge, `node.data[name]`, its `default`.
 * An input with `handle: false` is a property: set in `node.data` only, never connected.
 *
 * Dynamic inputs: a type with `dynamicInputs` also takes inputs it does not declare, one per name its
 * text names. `text.template` takes one per `{{name}}` slot of its template (`{{user.name}}` reads the
 * path `name` of input `user`); `math.expression` takes one per variable of its expression. Such an
 * input is connected with `targetHandle: "<name>"` or set as `node.data[<name>]`, like a declared one.
 */
import type { Category } from "../capabilities/types.ts";
import { AssetRef } from "../protocol/values.ts";
import { CATALOG } from "./node-catalog.ts";

/** Handle types of assets: the value is an asset (`{$asset: id}`, its id, or bytes), never data. */
export const ASSET_HANDLE_TYPES = ["image", "audio", "file"] as const;
export type AssetHandleType = (typeof ASSET_HANDLE_TYPES)[number];

export const HANDLE_TYPES = ["string", "number", "boolean", "json", "list", "any", ...ASSET_HANDLE_TYPES] as const;
export type HandleType = (typeof HANDLE_TYPES)[number];

export function isAssetType(type: HandleType): type is AssetHandleType {
  return (ASSET_HANDLE_TYPES as readonly string[]).includes(type);
}

export interface InputSpec {
  readonly name: string;
  readonly type: HandleType;
  readonly description: string;
  /** Used when the input is neither connected nor set in `node.data`. */
  readonly default?: unknown;
  /** Must be connected or set: there is no default. */
  readonly required?: boolean;
  /** `false`: a property set in `node.data` only, with no handle to connect. */
  readonly handle?: false;
  /** The only values a string input accepts. */
  readonly options?: readonly string[];
  readonly min?: number;
  readonly max?: number;
}

export interface OutputSpec {
  readonly name: string;
  readonly type: HandleType;
  readonly description: string;
}

/** A capability a node calls through the gate when it runs, and its category. */
export interface NodeEffect {
  readonly capability: string;
  readonly category: Category;
}

export interface NodeType {
  /** Dotted by family: `text.template`. */
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly inputs: readonly InputSpec[];
  readonly outputs: readonly OutputSpec[];
  readonly dynamicInputs?: { readonly type: HandleType; readonly description: string };
  readonly effects?: readonly NodeEffect[];
  /** A note for people reading the workflow: drawn on the canvas, never run (no handles, no executor). */
  readonly note?: true;
}

export const NODE_TYPES: readonly NodeType[] = CATALOG;

const byId = new Map<string, NodeType>(NODE_TYPES.map((t) => [t.id, t]));

export function findNodeType(id: string): NodeType | undefined {
  return byId.get(id);
}

/** Whether a node type is a note (drawn, never run). */
export function isNote(typeId: string): boolean {
  return byId.get(typeId)?.note === true;
}

/** A node as the canvas names it: its title, else its type's, else the type's id. */
export function nodeLabel(node: { type: string; title?: string | undefined }): string {
  return node.title || findNodeType(node.type)?.title || node.type;
}

export function nodeTypeIds(): string[] {
  return NODE_TYPES.map((t) => t.id);
}

/** `text.template` -> `text`. */
export function familyOf(id: string): string {
  const dot = id.indexOf(".");
  return dot < 0 ? id : id.slice(0, dot);
}

export function findInput(type: NodeType, name: string): InputSpec | undefined {
  return type.inputs.find((input) => input.name === name);
}

/**
 * Whether an edge may carry values from an output of type `from` into an input of type `to`. `any` and
 * `json` outputs are only known at run time, so they connect anywhere and are checked when they arrive.
 * An asset output connects only to inputs that take an asset: its own kind, `file` (every asset is a
 * file), or `any`; a `file` output may feed an image or audio input, checked when it runs.
 */
export function canConnect(from: HandleType, to: HandleType): boolean {
  if (from === to || to === "any" || from === "any") return true;
  if (isAssetType(from)) return to === "file" || (from === "file" && isAssetType(to));
  if (from === "json") return true;
  // Every value that crosses an edge is JSON, so a json input takes any data (not an asset).
  return to === "json";
}

/** Why an output of type `from` may not feed an input of type `to`, for a person; undefined when it may. */
export function connectionProblem(from: HandleType, to: HandleType): string | undefined {
  if (canConnect(from, to)) return undefined;
  if (isAssetType(from)) {
    return `${capital(article(from))} output connects only to an input that takes ${article(from)}, a file or any value; this input takes ${article(to)}.`;
  }
  if (isAssetType(to)) return `This input takes ${article(to)} (an asset); ${article(from)} output cannot give one.`;
  return `${capital(article(from))} output does not fit an input that takes ${article(to)}; convert it first (text.template, json.stringify, json.parse).`;
}

function article(type: HandleType): string {
  const name = type === "json" ? "JSON value" : type === "any" ? "value" : type;
  return `${/^[aeiou]/.test(name) ? "an" : "a"} ${name}`;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Whether a value fits a handle type (numbers must be finite; an asset is a reference, an id or bytes). */
export function matchesType(type: HandleType, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "list":
      return Array.isArray(value);
    case "json":
      return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
    case "any":
      return value !== undefined;
    case "image":
    case "audio":
    case "file":
      return (typeof value === "string" && value !== "") || value instanceof AssetRef || value instanceof Uint8Array;
    default: {
      const never: never = type;
      return never;
    }
  }
}

/** A short name for a value's type, for messages: `string`, `number`, `list`, `object`, `null`. */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "list";
  if (typeof value === "number" && !Number.isFinite(value)) return "non-finite number";
  return typeof value;
}

const SLOT = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_]+|\[\d+\])*)\s*\}\}/g;

/** Each `{{ name }}` / `{{ name.path[0] }}` slot of a template: the input name and the path after it. */
export function templateSlots(template: string): { name: string; path: string; raw: string }[] {
  return [...template.matchAll(SLOT)].map((m) => ({ name: m[1] as string, path: m[2] ?? "", raw: m[0] }));
}

/** The distinct input names a template's slots read. */
export function templateInputs(template: string): string[] {
  return [...new Set(templateSlots(template).map((slot) => slot.name))];
}

/** Every effect the given node types may have, once per capability, in a stable order. */
export function effectsOf(typeIds: Iterable<string>): (NodeEffect & { node_types: string[] })[] {
  const found = new Map<string, NodeEffect & { node_types: string[] }>();
  for (const id of new Set(typeIds)) {
    for (const effect of findNodeType(id)?.effects ?? []) {
      const entry = found.get(effect.capability) ?? { ...effect, node_types: [] };
      entry.node_types.push(id);
      found.set(effect.capability, entry);
    }
  }
  return [...found.values()].sort((a, b) => a.capability.localeCompare(b.capability));
}

/**
 * One line for an approval prompt: the non-read categories the node types will use, or that they use
 * none. Reads are left out because they never ask.
 */
export function describeEffects(typeIds: Iterable<string>): string {
  const effects = effectsOf(typeIds).filter((e) => e.category !== "read");
  if (effects.length === 0) return "It uses no write, execute or external capabilities.";
  const parts = effects.map((e) => `${e.category} (${e.capability}, from ${e.node_types.join(", ")})`);
  return `It will use: ${parts.join("; ")}; each of these still asks on its own in default mode.`;
}
