/**
 * Declarations of what every action has without an import: the guest helpers (worker/guest), the
 * `CapabilityError` a failed call throws with its codes, `AssetRef`, `JsonValue`, `console`, and the
 * `nodetool` global over the mounted modules. Written by hand because the helpers are plain guest
 * JavaScript with no schema; keep them in step with worker/guest/*.js (a test type-checks examples
 * that use each one).
 */
import { ERROR_CODES } from "../protocol/errors.ts";
import { ERROR_MEANINGS } from "./errors.ts";

const errorCodes = ERROR_CODES.map((code) => `  | ${JSON.stringify(code)}`).join("\n");
const errorDocs = ERROR_CODES.map((code) => ` * - ${code}: ${ERROR_MEANINGS[code]}`).join("\n");

const HELPERS = `/** Any JSON value. */
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A reference to one of the user's assets (results carry it as \`asset\`; pass it wherever an asset id goes). */
interface AssetRef {
  readonly id: string;
}

/** The code on every failure. */
type ErrorCode =
${errorCodes};

/**
 * What a refused or failed capability call throws. Codes:
${errorDocs}
 */
declare class CapabilityError extends Error {
  readonly name: "CapabilityError";
  readonly code: ErrorCode;
  /** The capability's wire name, when a capability refused or failed. */
  readonly capability?: string;
  /** With invalid_tool_arguments: "path: message" per problem. */
  readonly issues?: string[];
  /** Close names, when a name was not found. */
  readonly suggestions?: string[];
}

/** How one item of \`batch\` settled. */
type BatchSettled<TItem, TValue> =
  | { ok: true; index: number; item: TItem; value: TValue }
  | {
      ok: false;
      index: number;
      item: TItem;
      error: { code: ErrorCode; message: string; capability?: string; issues?: string[] };
    };

/**
 * Runs fn over items, at most \`concurrency\` at once (default 4, 1..8), and never throws: each item
 * settles as {ok, index, item, value} or {ok: false, index, item, error}, in input order. With
 * stopOnError, items not yet started when one fails settle as cancelled.
 */
declare function batch<TItem, TValue>(
  items: Iterable<TItem>,
  fn: (item: TItem, index: number) => TValue | Promise<TValue>,
  options?: { concurrency?: number; stopOnError?: boolean },
): Promise<BatchSettled<TItem, Awaited<TValue>>[]>;

/** One capability in \`capabilities()\` and \`searchTools()\`. */
interface ToolInfo {
  /** The wire name: list_workflows. */
  name: string;
  /** workflows.list({ limit?: integer, ... }) */
  signature: string;
  description: string;
}

/** The mounted modules and their methods. */
declare function capabilities(): {
  module: string;
  namespace: string;
  methods: (ToolInfo & { method: string })[];
}[];

/**
 * Capabilities whose names or descriptions contain the words of query, best first (at most max,
 * default 10), each with its input and output JSON Schemas (a library pack's exports have none).
 */
declare function searchTools(
  query: string,
  max?: number,
): (ToolInfo & { module: string; input_schema?: unknown; output_schema?: unknown })[];

/**
 * Declarations, as TypeScript text: of a module ("workflows"), of one capability ("workflows.list" or
 * "list_workflows"), of these globals ("globals"), or the contract: limits, globals and error codes
 * ("contract"). Without a name: what there is to describe. Throws CapabilityError (unknown_capability)
 * for a name it does not know, naming the closest.
 */
declare function describe(nameOrModule?: string): string;

/** A node in a workflow graph. */
interface WorkflowNode {
  id: string;
  type: string;
  data: Record<string, unknown>;
  position: { x: number; y: number };
  title?: string;
}

/** An edge from an output handle to an input handle. */
interface WorkflowEdge {
  id: string;
  source: string;
  sourceHandle: string;
  target: string;
  targetHandle: string;
}

/** One node of an openWorkflow mirror; its mutators queue operations and return the handle. */
interface WorkflowNodeHandle {
  readonly id: string;
  /** A copy of the node's data as the mirror has it. */
  readonly data: Record<string, unknown>;
  /** Merges values into the node's data. */
  set(data: Record<string, unknown>): WorkflowNodeHandle;
  setTitle(title: string): WorkflowNodeHandle;
  moveTo(x: number, y: number): WorkflowNodeHandle;
  remove(): void;
}

/** A queued operation: a ui method and its arguments. */
interface PendingOperation {
  operation: string;
  args: Record<string, unknown>;
}

type CommitResult =
  | { ok: true; applied: number; nodes: WorkflowNode[]; edges: WorkflowEdge[] }
  | {
      ok: false;
      applied: number;
      /** The operation that failed; it and the rest stay queued. */
      failed: { operation: string; args: Record<string, unknown>; error: { code: ErrorCode; message: string } };
      pending: PendingOperation[];
    };

/**
 * A local mirror of a workflow graph. Mutators are synchronous and queue ui operations; commit()
 * replays them in order as ui calls (each passes the gate).
 */
interface WorkflowGraph {
  nodes: Map<string, WorkflowNode>;
  edges: Map<string, WorkflowEdge>;
  addNode(id: string, type: string, data?: Record<string, unknown>, position?: { x: number; y: number }): WorkflowNodeHandle;
  /** Returns the new edge's id (a pending id until commit). */
  connect(source: string, sourceHandle: string, target: string, targetHandle: string): string;
  removeNode(id: string): void;
  removeEdge(id: string): void;
  node(id: string): WorkflowNodeHandle;
  /** The queued operations, in the order commit() replays them. */
  pending(): PendingOperation[];
  commit(): Promise<CommitResult>;
}

/** Mirrors a workflow (no id: the one open in the editor). Needs the ui module. */
declare function openWorkflow(id?: string): Promise<WorkflowGraph>;

/** Captured as the action's logs. */
declare const console: {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
  debug(...values: unknown[]): void;
};

/** UTF-8 only. */
declare class TextEncoder {
  readonly encoding: "utf-8";
  encode(input?: string): Uint8Array;
  encodeInto(input: string, destination: Uint8Array): { read: number; written: number };
}
declare class TextDecoder {
  constructor(label?: "utf-8" | "utf8", options?: { fatal?: boolean; ignoreBOM?: boolean });
  readonly encoding: "utf-8";
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView): string;
}
declare function atob(data: string): string;
declare function btoa(data: string): string;
declare class URLSearchParams {
  constructor(init?: string | Record<string, string> | [string, string][] | URLSearchParams);
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  forEach(callback: (value: string, name: string, params: URLSearchParams) => void, thisArg?: unknown): void;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
  toString(): string;
}
declare class URL {
  constructor(url: string, base?: string);
  static canParse(url: string, base?: string): boolean;
  static parse(url: string, base?: string): URL | null;
  href: string;
  readonly origin: string;
  readonly protocol: string;
  readonly username: string;
  readonly password: string;
  readonly host: string;
  readonly hostname: string;
  port: string;
  pathname: string;
  search: string;
  readonly searchParams: URLSearchParams;
  hash: string;
  toString(): string;
  toJSON(): string;
}
declare function structuredClone<T>(value: T): T;
/** Randomness from the host. */
declare const crypto: {
  getRandomValues<T extends Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array>(array: T): T;
  randomUUID(): string;
};`;

/** The globals' declarations; `nodetool` covers the mounted modules. */
export function globalsDeclaration(mounted: readonly string[]): string {
  const members = mounted
    .map((name) => `  readonly ${name}: typeof import("@nodetool-ai/sandbox-nodetool/${name}").${name};`)
    .join("\n");
  return `${HELPERS}

/** The mounted modules' namespace objects without an import: nodetool.workflows.list() is workflows.list(). */
declare const nodetool: {
${members}
};`;
}
