/**
 * The invoke ladder (DESIGN.md section 5) and the CapabilityRun it hangs on. Every entrance reaches an
 * implementation only through `run.invoke`: lookup, normalise, validate, decide, ask, monitor, run, in
 * that order. Expected failures come back as values with a code; nothing here throws for them.
 */
import { allSpecs, argumentNames, closestNames, findSpec } from "../capabilities/table.ts";
import type { Actor, AnySpec, Category, InvokeResult, RunNeed } from "../capabilities/types.ts";
import { type ErrorCode, failure, isCodedError, issueLines } from "../protocol/errors.ts";
import { allowSetKey, ask } from "./ask.ts";
import { type Decision, decide } from "./decide.ts";
import type { Gate } from "./gate.ts";

export interface RunContext {
  readonly user_id: string;
  readonly session_id: string;
  readonly run_id: string;
  /** The agent conversation this run's action belongs to, when a model wrote it (a child agent's tokens count in it). */
  readonly thread_id?: string | undefined;
  /** Aborts when the run ends or is cancelled. */
  readonly signal: AbortSignal;
}

/**
 * What one call hands its implementation beside the run and the args: `credit(ms)` reports time the
 * call spent waiting on something the action's deadline should not count (a child agent's steps), as
 * an approval's wait is reported; the sandbox credits it up to its cap.
 */
export interface CallContext {
  credit(ms: number): void;
}

export type CapabilityImpl<TServices = unknown> = (
  run: CapabilityRun<TServices>,
  args: never,
  call: CallContext,
) => Promise<unknown>;

export interface AuditRecord {
  actor: Actor;
  run_id: string;
  session_id: string;
  capability: string;
  category: Category | null;
  decision: Decision | "allowed_by_session" | "refused";
  outcome: "ok" | ErrorCode;
  duration_ms: number;
  waited_ms: number;
}

export interface InvokeOptions {
  actor?: Actor;
  /**
   * Steps 1-6 only (the `ui` path): answer `{authorized, args, decision}` instead of running the
   * implementation. The caller applies the operation and audits its outcome itself.
   */
  authorizeOnly?: boolean;
}

/** What an authorize-only call answers when the gate lets it through. */
export interface Authorization {
  authorized: true;
  capability: string;
  category: Category;
  decision: AuditRecord["decision"];
  args: unknown;
}

export interface CapabilityRun<TServices = unknown> {
  readonly context: RunContext;
  readonly gate: Gate;
  /** The `ui` router; absent on headless runs. */
  readonly client?: unknown;
  readonly services: TServices;
  /** What this run can supply, beyond `client`: checked against a spec's `needs`. */
  readonly provides: ReadonlySet<RunNeed>;
  invoke(name: string, args: unknown, options?: InvokeOptions): Promise<InvokeResult>;
}

export interface RunHost<TServices> {
  context: RunContext;
  gate: Gate;
  services: TServices;
  client?: unknown;
  provides?: Iterable<RunNeed>;
  loadImpl(spec: AnySpec): Promise<CapabilityImpl<TServices>>;
  audit(record: AuditRecord): void;
  /** Full detail of an unexpected implementation error, for the host's log only. */
  logError?(capability: string, err: unknown): void;
  /**
   * Parse every result with its spec's `output` (the test setup turns this on): a result that does not
   * match fails the call with `capability_failed` naming the differences; `passed` hears each
   * capability whose result matched.
   */
  outputCheck?: { passed?(capability: string): void };
}

export function createRun<TServices>(host: RunHost<TServices>): CapabilityRun<TServices> {
  const consumed = new Set<string>();
  const provides = new Set<RunNeed>(host.provides ?? []);
  if (host.client !== undefined) provides.add("client");
  const run: CapabilityRun<TServices> = {
    context: host.context,
    gate: host.gate,
    client: host.client,
    services: host.services,
    provides,
    invoke: (name, args, options) => ladder(run, host, consumed, name, args, options ?? {}),
  };
  return run;
}

const ALL_NAMES = () => allSpecs().map((s) => s.name);

/** Step 2: camelCase keys become snake_case (an explicit snake twin wins); `_message` lifted out. */
export function normalise(args: unknown): { args: Record<string, unknown>; message?: string } | undefined {
  if (args === undefined || args === null) return { args: {} };
  if (typeof args !== "object" || Array.isArray(args)) return undefined;
  const out: Record<string, unknown> = {};
  let message: string | undefined;
  for (const [key, value] of Object.entries(args)) {
    if (key === "_message") {
      if (typeof value === "string") message = value.slice(0, 500);
      continue;
    }
    out[key] = value;
  }
  for (const [key, value] of Object.entries(out)) {
    if (!/[A-Z]/.test(key)) continue;
    const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (!(snake in out)) out[snake] = value;
    delete out[key];
  }
  return message === undefined ? { args: out } : { args: out, message };
}

/** One issue line per argument `spec` does not take, with the closest it does; undefined when none. */
function strayArguments(spec: AnySpec, args: Record<string, unknown>): string[] | undefined {
  const known = argumentNames(spec);
  if (!known) return undefined; // Not an object of named arguments: its schema alone says what fits.
  const stray = Object.keys(args).filter((key) => !known.includes(key));
  if (stray.length === 0) return undefined;
  const takes = known.length > 0 ? `it takes ${known.join(", ")}` : "it takes none";
  return stray.map((key) => {
    const near = closestNames(key, known, 1);
    return `${key}: not an argument of ${spec.name}${near.length ? ` (did you mean ${near[0]}?)` : ""}; ${takes}`;
  });
}

async function ladder<TServices>(
  run: CapabilityRun<TServices>,
  host: RunHost<TServices>,
  consumed: Set<string>,
  name: string,
  rawArgs: unknown,
  options: InvokeOptions,
): Promise<InvokeResult> {
  const actor = options.actor ?? "agent";
  const started = performance.now();
  let waited = 0;
  let approval = 0;
  let category: Category | null = null;
  let decision: AuditRecord["decision"] = "refused";
  const finish = (result: InvokeResult): InvokeResult => {
    host.audit({
      actor,
      run_id: host.context.run_id,
      session_id: host.context.session_id,
      capability: name,
      category,
      decision,
      outcome: result.ok ? "ok" : result.error.code,
      duration_ms: performance.now() - started,
      waited_ms: waited,
    });
    if (waited > 0) result.waited_ms = Math.round(waited);
    if (approval > 0) result.approval_ms = Math.round(approval);
    return result;
  };
  const fail = (code: ErrorCode, message: string, extra: Parameters<typeof failure>[2] = {}) =>
    finish({ ok: false, error: failure(code, message, { capability: name, ...extra }) });

  // 1. Lookup.
  const spec = findSpec(name);
  if (!spec) {
    const near = closestNames(name, ALL_NAMES());
    const hint = near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "";
    return fail("unknown_capability", `There is no capability named "${name}".${hint}`, { suggestions: near });
  }
  category = spec.category;
  if (host.context.signal.aborted)
    return fail("run_ended", "This run has ended; start a new run to call capabilities.");

  // 2. Normalise.
  const normalised = normalise(rawArgs);
  if (!normalised) {
    return fail("invalid_tool_arguments", `${name} takes one object of named arguments.`, {
      issues: ["(args): expected an object"],
    });
  }

  // 3. Validate, before anything can prompt. An argument the capability does not take is refused, not
  // dropped: a misspelt `limit` or `graph` would otherwise be ignored in silence.
  const stray = strayArguments(spec, normalised.args);
  if (stray)
    return fail("invalid_tool_arguments", `Invalid arguments for ${name}: ${stray.join("; ")}`, { issues: stray });
  const parsed = spec.input.safeParse(normalised.args);
  if (!parsed.success) {
    const issues = issueLines(parsed.error, "(args)");
    return fail("invalid_tool_arguments", `Invalid arguments for ${name}: ${issues.join("; ")}`, { issues });
  }
  const args = parsed.data;

  // A call this run could never serve is refused before it can prompt anyone.
  for (const need of spec.needs ?? []) {
    if (!run.provides.has(need)) {
      const why =
        need === "client"
          ? "needs a connected editor"
          : "needs a model provider, and none is configured on this server (models.list says what to set)";
      return fail("capability_unavailable", `${name} ${why}.`);
    }
  }

  // 4. Decide.
  decision = decide(await run.gate.mode(), spec.category, actor);
  if (decision === "block") {
    const instead =
      run.gate.highestMode === "plan"
        ? "Plan is the highest mode this session may have, so it cannot run here: do what reads can, and tell the user what would need it."
        : "Ask the user to switch mode.";
    return fail(
      "blocked_in_plan_mode",
      `${name} is a ${spec.category} capability and the session is in plan mode, where only reads run. ${instead}`,
    );
  }

  // 5. Ask, unless the session already allows this name (or this name for this scope).
  if (decision === "ask") {
    const allowKey = allowSetKey(spec, args);
    if (await run.gate.allowSet.has(allowKey)) {
      decision = "allowed_by_session";
    } else {
      const askStarted = performance.now();
      const verdict = await ask(run, spec, args, normalised.message, consumed, allowKey);
      approval = performance.now() - askStarted;
      waited = approval;
      if (verdict.kind !== "allow") return fail(verdict.code, verdict.message);
    }
  }

  // 6. Monitor: non-read calls only, after approval.
  if (spec.category !== "read" && run.gate.monitor) {
    const verdict = await run.gate.monitor({
      run_id: host.context.run_id,
      capability: name,
      category: spec.category,
      args,
    });
    if (!verdict.allow)
      return fail("blocked_by_security_monitor", `The security monitor blocked ${name}: ${verdict.reason}`);
  }

  // 7. Run.
  if (host.context.signal.aborted) return fail("run_ended", "This run ended while the call waited; nothing was done.");
  if (options.authorizeOnly) {
    const authorization: Authorization = {
      authorized: true,
      capability: name,
      category: spec.category,
      decision,
      args,
    };
    const result: InvokeResult = { ok: true, value: authorization };
    if (waited > 0) result.waited_ms = Math.round(waited);
    if (approval > 0) result.approval_ms = Math.round(approval);
    return result;
  }
  try {
    const impl = await host.loadImpl(spec);
    const call: CallContext = { credit: (ms) => (waited += Math.max(0, ms)) };
    const value = (await impl(run, args as never, call)) ?? null;
    if (host.outputCheck) {
      const checked = spec.output.safeParse(value);
      if (!checked.success) {
        const issues = issueLines(checked.error, "(args)");
        return fail("capability_failed", `${name} returned a result its output schema refuses: ${issues.join("; ")}`, {
          issues,
        });
      }
      host.outputCheck.passed?.(name);
    }
    return finish({ ok: true, value });
  } catch (err) {
    if (isCodedError(err)) {
      // A coded refusal that carries the host error behind it (a disk, a bucket): the caller reads the
      // message, the operator's log gets the cause.
      if (err.cause !== undefined) host.logError?.(name, err.cause);
      return finish({ ok: false, error: { ...err.payload, capability: name } });
    }
    host.logError?.(name, err);
    return fail("capability_failed", `${name} failed: ${safeMessage(err)}`);
  }
}

/** One line, no stack, no host paths, bounded length. */
export function safeMessage(err: unknown): string {
  const raw = err instanceof Error ? err.message : typeof err === "string" ? err : "unexpected error";
  const firstLine = raw.split("\n")[0] ?? "";
  const cleaned = firstLine
    // Any word holding a slash first: the narrower pattern below stops at `~`, `(` or a non-ASCII
    // letter and would leave the rest of the path behind.
    .replace(/[^\s'"`]*[\\/][^\s'"`]*/g, "<path>")
    .replace(/(?:[A-Za-z]:)?(?:[\\/][\w .@+-]+){2,}/g, "<path>")
    .replace(/file:\/\/\S+/g, "<path>")
    .slice(0, 300);
  return cleaned || "unexpected error";
}
