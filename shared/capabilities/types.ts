/**
 * The capability model (DESIGN.md section 4). Specs are data shared by every side; implementations
 * live only on the server and are attached to the very spec objects declared here.
 */
import type { z } from "zod";
import type { FailurePayload } from "../protocol/errors.ts";

export const CATEGORIES = ["read", "write", "execute", "external"] as const;
export type Category = (typeof CATEGORIES)[number];

export const MODES = ["plan", "default", "auto"] as const;
export type Mode = (typeof MODES)[number];

/** Run dependencies a capability may need; a run without one answers `capability_unavailable`. */
export type RunNeed = "client" | "providers";

export interface CapabilitySpec<TInput extends z.ZodType = z.ZodType, TOutput extends z.ZodType = z.ZodType> {
  /** Wire name, snake_case: `list_workflows`. */
  readonly name: string;
  /** Short name on the namespace object: `workflows.list`. */
  readonly method: string;
  readonly description: string;
  readonly input: TInput;
  /**
   * What the implementation returns, as the host sees it (bytes as `Uint8Array`, assets as `AssetRef`).
   * Strict objects only, so a key the schema does not name fails; `z.unknown()` only where the value
   * is the user's own JSON. Tests parse every real result with it (the ladder's output check).
   */
  readonly output: TOutput;
  readonly category: Category;
  readonly userMessage?: (args: z.output<TInput>) => string;
  readonly positional?: readonly string[];
  readonly needs?: readonly RunNeed[];
  /**
   * What "allow for session" covers: with a scope, the allow-set holds `name@scope` (for http_request,
   * the destination origin), so approving one origin never allows another. Absent: the whole name.
   */
  readonly scope?: (args: z.output<TInput>) => string | undefined;
}

export type AnySpec = CapabilitySpec<z.ZodType, z.ZodType>;

/** A namespace: its name and its specs, in declaration order. */
export interface ModuleSpecs {
  readonly name: string;
  readonly description: string;
  readonly specs: readonly AnySpec[];
}

export type Actor = "agent" | "user";

/**
 * How long a call waited: `waited_ms`, time the action's deadline does not count (an approval, a child
 * agent's steps); `approval_ms`, the part of it spent waiting for the person to answer an approval
 * (an action's own run time leaves it out).
 */
export interface CallWaits {
  waited_ms?: number;
  approval_ms?: number;
}

/** What one capability call answers: a value, or a failure as a value. */
export type InvokeResult = ({ ok: true; value: unknown } | { ok: false; error: FailurePayload }) & CallWaits;

/** A result's waits, only those that happened, to pass on with it. */
export function waitsOf(result: CallWaits): CallWaits {
  const waits: CallWaits = {};
  if (typeof result.waited_ms === "number" && result.waited_ms > 0) waits.waited_ms = result.waited_ms;
  if (typeof result.approval_ms === "number" && result.approval_ms > 0) waits.approval_ms = result.approval_ms;
  return waits;
}

export function defineSpec<TInput extends z.ZodType, TOutput extends z.ZodType>(
  spec: CapabilitySpec<TInput, TOutput>,
): CapabilitySpec<TInput, TOutput> {
  return Object.freeze({ ...spec });
}
