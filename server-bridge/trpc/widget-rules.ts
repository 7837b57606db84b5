/**
 * The rules a widget's credential is held to in the API (DESIGN.md section 8a), in one place:
 *
 * - scope: every `sessionId`, `runId` and `approvalId` a widget caller names must belong to a session
 *   its widget created (the procedures name their ids so, and nothing else); an unknown id looks the
 *   same as a foreign one;
 * - liveness: a socket authenticated once, so each of its calls checks that the credential was not
 *   revoked or expired since;
 * - sessions mount only the widget's modules, and never run above its highest mode;
 * - limits: actions (runs) in flight, and capability calls per minute, per widget;
 * - a widget never acts as the user (the user is the widget's account, not the visitor): the calls of
 *   its own controls go through the gate like the agent's.
 *
 * Callers that are not widgets pass every check unchanged.
 */
import type { Actor, InvokeResult, Mode } from "../../shared/capabilities/types.ts";
import { CodedError } from "../../shared/protocol/errors.ts";
import type { AppServices } from "../app-services.ts";
import type { Caller } from "../auth/caller.ts";
import { initialMode, modulesWithin, requireModeWithin, type WidgetPolicy } from "../auth/widget-policy.ts";
import { refusal } from "../runs/runs.ts";

interface Ctx {
  app: AppServices;
  caller: Caller;
  sameOrigin: boolean;
  socket?: unknown;
}

const SCOPED = ["sessionId", "runId", "approvalId"] as const;

const WHAT: Record<(typeof SCOPED)[number], string> = {
  sessionId: "Session",
  runId: "Run",
  approvalId: "Approval",
};

function unauthorized(message: string): CodedError {
  return new CodedError({ code: "unauthorized", message });
}

/** Before any procedure of a widget caller: its credential still holds, and every id it names is its widget's. */
export async function checkWidgetScope(ctx: Ctx, raw: unknown): Promise<void> {
  const widget = ctx.caller.widget;
  if (ctx.caller.via !== "widget" || !widget) return;
  const credential = ctx.caller.session ?? "";
  if (ctx.socket !== undefined && !(await ctx.app.widgets.stillValid([credential])).has(credential)) {
    throw unauthorized("This widget's credential was revoked or has expired. Reload the host page to open it again.");
  }
  if (typeof raw !== "object" || raw === null) return;
  for (const key of SCOPED) {
    const id = (raw as Record<string, unknown>)[key];
    if (typeof id !== "string") continue;
    if ((await ctx.app.widgets.ownerOf(key, id)) !== widget.id) {
      throw unauthorized(`${WHAT[key]} "${id}" does not exist or is not this widget's.`);
    }
  }
}

function widgetOf(ctx: Ctx): WidgetPolicy | undefined {
  return ctx.caller.via === "widget" ? ctx.caller.widget : undefined;
}

/** What `session.create` makes for a widget: its modules only, a mode within its highest, its id. */
export function widgetSession<TInput extends { mode?: Mode | undefined; modules?: string[] | undefined }>(
  ctx: Ctx,
  input: TInput,
): TInput & { widgetId?: string } {
  const widget = widgetOf(ctx);
  if (!widget) return input;
  return {
    ...input,
    mode: initialMode(widget, input.mode),
    modules: modulesWithin(widget, input.modules),
    widgetId: widget.id,
  };
}

/** Refuses a mode above the widget's highest (no-op for other callers). */
export function checkWidgetMode(ctx: Ctx, mode: Mode): void {
  const widget = widgetOf(ctx);
  if (widget) requireModeWithin(widget, mode);
}

/** Refuses a new run when the widget already has its limit of actions in flight. */
export function admitWidgetRun(ctx: Ctx): void {
  const widget = widgetOf(ctx);
  if (!widget) return;
  if (ctx.app.runs.liveCount(widget.id) >= widget.maxActions) {
    throw new CodedError({
      code: "invalid_call",
      message: `This widget allows ${widget.maxActions} actions at once; wait for one to finish, then run again.`,
    });
  }
}

/**
 * Each widget's calls in the last minute, by the second they were made in (oldest first). A second's
 * calls are freed once a full 60 s have passed since that second ended, so no 60 s window ever holds
 * more than the limit (a fixed clock minute would let a burst at its end repeat at the next one's
 * start); a caller waits at most a second longer than an exact log would make it. Per process: a rate
 * limit is a live counter.
 */
const meters = new Map<string, { second: number; calls: number }[]>();

/** The seconds of `held` whose calls are not yet freed at the start of `second`. */
function unexpired(held: { second: number; calls: number }[], second: number) {
  return held.filter((s) => s.second > second - 61);
}

/**
 * Counts `calls` capability calls against the widget's calls per minute; past it, the refusal each of
 * them answers (as a value: the guest reads it like any failed call). Undefined when admitted.
 */
export function meterWidgetCalls(ctx: Ctx, calls: number): InvokeResult | undefined {
  const widget = widgetOf(ctx);
  if (!widget) return undefined;
  const limit = widget.callsPerMinute;
  if (calls > limit) {
    return refusal(
      "invalid_call",
      `This batch of ${calls} capability calls is more than the ${limit} a minute this widget allows; send fewer at once.`,
    );
  }
  const now = Date.now();
  const second = Math.floor(now / 1000);
  const held = unexpired(meters.get(widget.id) ?? [], second);
  let used = held.reduce((sum, s) => sum + s.calls, 0);
  if (used + calls > limit) {
    // Free the oldest seconds until the batch fits (it will: calls <= limit); wait for the last one freed.
    let until = second;
    for (const s of held) {
      if (used + calls <= limit) break;
      used -= s.calls;
      until = s.second + 61;
    }
    const wait = Math.max(1, Math.ceil((until * 1000 - now) / 1000));
    return refusal(
      "invalid_call",
      `This widget allows ${limit} capability calls a minute and has used them; wait ${wait} s, then call again.`,
    );
  }
  const last = held.at(-1);
  if (last?.second === second) last.calls += calls;
  else held.push({ second, calls });
  meters.set(widget.id, held);
  if (meters.size > 10_000) {
    for (const [id, seconds] of meters) if (unexpired(seconds, second).length === 0) meters.delete(id);
  }
  return undefined;
}

/** Whose act a call is: a widget's calls are always the agent's (gated), never the user's. */
export function actorOf(ctx: Ctx, actor: Actor | undefined): Actor | undefined {
  return widgetOf(ctx) ? "agent" : actor;
}
