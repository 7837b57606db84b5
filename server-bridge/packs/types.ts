/**
 * A library pack: pure functions over plain data (no run, no gate context, no I/O), one instance per
 * process. Packs are first-party code listed in `index.ts`; their manifests can never claim a capability
 * module id or another pack's id (the library refuses such a manifest when it is built).
 */
import type { z } from "zod";

export interface PackExport<TInput extends z.ZodType = z.ZodType> {
  /** Export name in the facade (`parse`), a JavaScript identifier. */
  readonly name: string;
  readonly description: string;
  /** Shown by `searchTools` in the guest. */
  readonly signature: string;
  /** Argument names a call may pass positionally, as for capabilities. */
  readonly positional?: readonly string[];
  /**
   * A call with one plain object lacking this key passes that object as this argument: `zip(files)`
   * where `files` is itself an object (argument folding would read it as named arguments).
   */
  readonly loneObject?: string;
  readonly input: TInput;
  run(args: z.output<TInput>): unknown;
}

export interface PackManifest {
  /** The pack id: `csv` -> `@nodetool-ai/sandbox-packs/csv`. */
  readonly name: string;
  readonly description: string;
  readonly exports: readonly PackExport[];
}

export function definePack(manifest: PackManifest): PackManifest {
  return Object.freeze({ ...manifest, exports: Object.freeze([...manifest.exports]) });
}

export function defineExport<TInput extends z.ZodType>(spec: PackExport<TInput>): PackExport {
  return Object.freeze({ ...spec }) as unknown as PackExport;
}
