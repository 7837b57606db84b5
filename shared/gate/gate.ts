/** The gate a host hands to each run: the mode, the session's allow-set, who to ask, an optional monitor. */
import type { Mode } from "../capabilities/types.ts";
import type { AllowSet, Approver, Monitor } from "./approvals.ts";

export interface Gate {
  /** Read once per call: a server reads its store (so a person's change applies to the next call). */
  mode(): Mode | Promise<Mode>;
  readonly allowSet: AllowSet;
  readonly approver: Approver;
  readonly monitor?: Monitor;
  /** How long an ask may stay open before it settles as `approval_timeout`. */
  readonly approvalTimeoutMs: number;
  /**
   * The highest mode this session may ever be switched to (a widget's), when it has one: a refusal in
   * plan mode then never tells the model to ask for a mode the person cannot choose.
   */
  readonly highestMode?: Mode | undefined;
  /**
   * How an approval names what the arguments refer to by id, as a map from each id to its shown form
   * (a server: the user's own workflows, assets and jobs, `wf_1` -> `"Sum" (wf_1)`), so a person allows
   * a deletion knowing what goes. Absent, or failing: the ids are shown as they are.
   */
  readonly named?: (args: unknown) => Promise<ReadonlyMap<string, string>>;
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;

export class MemoryAllowSet {
  readonly #names = new Set<string>();
  has(capability: string): boolean {
    return this.#names.has(capability);
  }
  add(capability: string): void {
    this.#names.add(capability);
  }
  delete(capability: string): boolean {
    return this.#names.delete(capability);
  }
  list(): string[] {
    return [...this.#names].sort();
  }
}
