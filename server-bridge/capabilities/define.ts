/**
 * How an implementation module attaches its implementations to the very spec objects it imports
 * from shared/capabilities/specs. The drift check compares these specs with the table by identity.
 */
import type { z } from "zod";
import type { AnySpec, CapabilitySpec } from "../../shared/capabilities/types.ts";
import type { CallContext, CapabilityRun } from "../../shared/gate/invoke.ts";
import type { AgentHost } from "../agent/subtask.ts";
import type { AssetStore } from "../assets/store.ts";
import type { JobEngine } from "../engine/jobs.ts";
import type { UserEvents } from "../runs/events.ts";
import type { Store } from "../store/db.ts";
import type { WebPolicy } from "../web/vet.ts";

/** What every server-side run hands its implementations. */
export interface ServerServices {
  readonly store: Store;
  /** The workflow engine; absent on hosts built without one, where workflow runs are unavailable. */
  readonly jobs?: JobEngine;
  /** The assets: rows in the store, bytes on disk or in a bucket; absent: files under the store's DATA_DIR, default caps. */
  readonly assets?: AssetStore;
  /** The outbound HTTP policy; absent: public addresses only (web/vet.ts). */
  readonly web?: WebPolicy;
  /** Announcements to every session of a user (the workflow change feed); absent: nobody listens. */
  readonly events?: UserEvents;
  /** The agent's models and child agents; absent on hosts without the agent. */
  readonly agent?: AgentHost;
}

export type ServerRun = CapabilityRun<ServerServices>;

export interface Implemented {
  readonly spec: AnySpec;
  readonly impl: (run: ServerRun, args: never, call: CallContext) => Promise<unknown>;
}

/** The implementation's result is typed by the spec's `output` (its input side: host values, no defaults applied). */
export function implement<TInput extends z.ZodType, TOutput extends z.ZodType>(
  spec: CapabilitySpec<TInput, TOutput>,
  impl: (run: ServerRun, args: z.output<TInput>, call: CallContext) => Promise<z.input<TOutput>>,
): Implemented {
  return { spec: spec as unknown as AnySpec, impl: impl as Implemented["impl"] };
}
