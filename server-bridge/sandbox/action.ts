/**
 * One action, end to end, on the Node sandbox pool: the guest's calls go to the run through the usual
 * router (capability modules -> dispatch -> `run.invoke`; packs -> the library), with exactly the packs
 * the caller allows. Shared by every server-side entrance (the CLI's `action`, MCP's `execute_code`), so
 * they mount, route and limit actions the same way; the action counts against the run's user.
 */
import type { InvokeResult } from "../../shared/capabilities/types.ts";
import type { CapabilityRun } from "../../shared/gate/invoke.ts";
import type { LimitOverrides } from "../../shared/protocol/worker.ts";
import { type CallRouter, callRouter } from "../calls/router.ts";
import type { LibraryDispatcher } from "../packs/index.ts";
import type { ActionRun, NodeExecutor } from "./host.ts";
import type { PoolRunOptions } from "./pool.ts";

export interface SandboxedAction {
  action: string;
  run: CapabilityRun<unknown>;
  /** Capability namespaces mounted for the session. */
  mounted: readonly string[];
  /** Library packs the session allows (names). */
  packs: readonly string[];
  library: LibraryDispatcher;
  limits?: LimitOverrides | undefined;
  signal?: AbortSignal | undefined;
  /** Told each time one guest call settles (progress reporting). */
  onCallSettled?: (() => void) | undefined;
}

export function runSandboxedAction(
  sandbox: NodeExecutor<PoolRunOptions>,
  options: SandboxedAction,
): Promise<ActionRun> {
  const routed = callRouter({
    run: options.run,
    mounted: options.mounted,
    library: options.library,
    allowedPacks: options.packs,
  });
  const onSettled = options.onCallSettled;
  const router: CallRouter = onSettled
    ? (calls, signal) => {
        const results = routed(calls, signal);
        for (const result of results) result.then(onSettled, onSettled);
        return results as ReadonlyArray<Promise<InvokeResult>>;
      }
    : routed;
  return sandbox.run(options.action, {
    user: options.run.context.user_id,
    mounted: options.mounted,
    packs: options.library.packInfo(options.packs),
    router,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
