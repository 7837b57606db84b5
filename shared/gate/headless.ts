/**
 * The gate a host gets when it supplies none: `default` mode and an approver that denies. It fails
 * closed: reads run, nothing else does, until the host configures a mode.
 */
import type { Mode } from "../capabilities/types.ts";
import type { Approver } from "./approvals.ts";
import { DEFAULT_APPROVAL_TIMEOUT_MS, type Gate, MemoryAllowSet } from "./gate.ts";

export const HEADLESS_DENIAL =
  "There is no user to ask on this headless run, so calls that need approval are denied. " +
  "Configure a mode to let them run (for example --mode auto), or use only read capabilities.";

/** An approver that answers every ask with a denial carrying `reason` (there is no one to ask). */
export function denyingApprover(reason: string): Approver {
  return {
    async ask(request) {
      return { kind: "answer", answer: "deny", approval_id: request.approval_id, hash: request.hash, reason };
    },
  };
}

export function headlessGate(mode: Mode = "default"): Gate {
  return {
    mode: () => mode,
    allowSet: new MemoryAllowSet(),
    approver: denyingApprover(HEADLESS_DENIAL),
    approvalTimeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS,
  };
}
