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

/**
 * A run still being opened (its row written) while the action starts: the action's calls wait for it,
 * and fail with `run_ended` if it cannot be opened. Whoever opened it awaits it before answering.
 */
export interface OpeningRun {
  user_id: string;
  ready: Promise<CapabilityRun<unknown>>;
}

export interface SandboxedAction {
  action: string;
  run: CapabilityRun<unknown> | OpeningRun;
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
  const routerFor = (run: CapabilityRun<unknown>) =>
    callRouter({ run, mounted: options.mounted, library: options.library, allowedPacks: options.packs });
  const given = options.run;
  // A run that is open already is one whose opening is over: one path for both.
  const opening: OpeningRun =
    "ready" in given ? given : { user_id: given.context.user_id, ready: Promise.resolve(given) };
  const routed = deferredRouter(opening.ready.then(routerFor));
  const onSettled = options.onCallSettled;
  const router: CallRouter = onSettled
    ? (calls, signal) => {
        const results = routed(calls, signal);
        for (const result of results) result.then(onSettled, onSettled);
        return results as ReadonlyArray<Promise<InvokeResult>>;
      }
    : routed;
  return sandbox.run(options.action, {
    user: opening.user_id,
    mounted: options.mounted,
    packs: options.library.packInfo(options.packs),
    router,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

const RUN_NOT_OPENED: InvokeResult = {
  ok: false,
  error: { code: "run_ended", message: "The run could not be started; the call was not made." },
};

/** A router whose calls wait for the real one (made once the run is open). */
function deferredRouter(ready: Promise<CallRouter>): CallRouter {
  // An action that makes no call never looks: its run's failure is its opener's to report.
  ready.catch(() => undefined);
  return (calls, signal) => {
    const results = ready.then(
      (router) => router(calls, signal),
      () => calls.map(() => Promise.resolve(RUN_NOT_OPENED)),
    );
    return calls.map((_, i) => results.then((all) => all[i] ?? RUN_NOT_OPENED));
  };
}
