/** The page <-> server API (DESIGN.md section 8): sessions, runs, approvals, the catalog. */

import { TRPCError, tracked } from "@trpc/server";
import { z } from "zod";
import { describeModules } from "../../shared/capabilities/catalog.ts";
import { MODES } from "../../shared/capabilities/types.ts";
import { ErrorCode } from "../../shared/protocol/errors.ts";
import type { SessionEvent } from "../../shared/protocol/server.ts";
import { InvokeCall, RespondInput } from "../../shared/protocol/server.ts";
import { toWire } from "../../shared/protocol/values.ts";
import { MAX_BATCH_CALLS } from "../../shared/protocol/worker.ts";
import { batchTooLarge } from "../config.ts";
import { JOB_STATUSES } from "../engine/job-store.ts";
import { defaultLibrary } from "../packs/index.ts";
import { invokeMany } from "../runs/invoke-many.ts";
import { agentRouter } from "./agent-router.ts";
import { authed, byPerson, person, router } from "./init.ts";
import { actorOf, admitWidgetRun, checkWidgetMode, meterWidgetCalls, widgetSession } from "./widget-rules.ts";
import { widgetsRouter } from "./widgets-router.ts";

const Id = z.string().min(1).max(200);
const Mode = z.enum(MODES);
const Actor = z.enum(["agent", "user"]);

/**
 * Whose act a call is. Acting as the user (never prompted) is the person's own act: cookie session and
 * same origin only; a widget's calls are always the agent's (widget-rules.ts).
 */
function actingAs(ctx: Parameters<typeof actorOf>[0], actor: "agent" | "user" | undefined) {
  const acting = actorOf(ctx, actor);
  if (acting === "user" && !byPerson(ctx)) {
    throw new TRPCError({ code: "FORBIDDEN", message: "Only the signed-in person's page may act as the user." });
  }
  return acting;
}

const Names = z.array(z.string().min(1).max(100)).max(100);

export const appRouter = router({
  agent: agentRouter,
  widgets: widgetsRouter,
  auth: router({
    /** Who the caller is: the user's name (the page says whom it is signed in as). */
    whoami: authed.query(async ({ ctx }) => ({ name: (await ctx.app.credentials.nameOf(ctx.userId)) ?? ctx.userId })),
    /** Signs this browser out: its login ends, and every socket it holds is closed. */
    signOut: person.mutation(async ({ ctx }) => {
      if (ctx.caller.via === "cookie" && ctx.caller.session) await ctx.app.logins.end(ctx.caller.session);
      return { signedOut: true };
    }),
  }),
  config: router({
    /** Limits the page applies to actions it runs in its worker. */
    get: authed.query(({ ctx }) => ({
      actionTimeoutMs: ctx.app.config.actionTimeoutMs,
      /** The largest message (or HTTP body) the server takes: the page splits its batches below it. */
      maxMessageBytes: ctx.app.config.maxBodyBytes,
      /** The largest asset (an upload past it is refused before it is sent). */
      maxAssetBytes: ctx.app.assets.limits.maxBytes,
    })),
  }),
  session: router({
    create: authed
      .input(z.object({ mode: Mode.optional(), modules: Names.optional(), packs: Names.optional() }).default({}))
      .mutation(({ ctx, input }) => {
        // `auto` skips every approval: choosing it is the person's act, here as in setMode.
        // ALLOW_TOKEN_AUTO_MODE lets a token choose it; never a widget's credential outside its page.
        const tokenMay = ctx.app.config.allowTokenAutoMode && ctx.caller.via !== "widget";
        if (input.mode === "auto" && !byPerson(ctx) && !tokenMay) {
          throw new TRPCError({
            code: "FORBIDDEN",
            message:
              'Only the signed-in person can choose auto mode (it skips every approval). Create the session in "default" or "plan" mode; the person may switch it to auto from the app.',
          });
        }
        // A script's session has no page of its own: its approvals are asked in its user's signed-in pages.
        const script = ctx.caller.via === "api" || ctx.caller.via === "bearer";
        return ctx.app.sessions.create(ctx.userId, {
          ...widgetSession(ctx, input),
          ...(script ? { asker: "script" } : {}),
        });
      }),
    get: authed
      .input(z.object({ sessionId: Id }))
      .query(({ ctx, input }) => ctx.app.sessions.view(ctx.userId, input.sessionId)),
    setMode: person.input(z.object({ sessionId: Id, mode: Mode })).mutation(({ ctx, input }) => {
      checkWidgetMode(ctx, input.mode);
      return ctx.app.sessions.setMode(ctx.userId, input.sessionId, input.mode);
    }),
    allowed: authed.input(z.object({ sessionId: Id })).query(async ({ ctx, input }) => {
      await ctx.app.sessions.require(ctx.userId, input.sessionId);
      return { allowed: await ctx.app.sessions.allowed(input.sessionId) };
    }),
    revoke: person
      .input(z.object({ sessionId: Id, capability: z.string().min(1).max(200).optional() }))
      .mutation(async ({ ctx, input }) => ({
        allowed: await ctx.app.sessions.revoke(ctx.userId, input.sessionId, input.capability),
      })),
    /**
     * The session's events, each `tracked()` with its id: a resubscription naming the last id it saw
     * (`lastEventId`, which tRPC's clients send by themselves) is first replayed what it missed.
     */
    events: authed
      .input(z.object({ sessionId: Id, lastEventId: z.string().max(100).nullish() }))
      .subscription(async function* ({ ctx, input, signal }) {
        await ctx.app.sessions.require(ctx.userId, input.sessionId);
        const stop = signal ?? new AbortController().signal;
        // Listen first, then replay what is pending, so nothing falls between the two.
        // The user's channel too: workflow changes reach every session of the user.
        // The signed-in person's page also asks the approvals of the user's scripts (they have no page).
        const person = ctx.caller.via === "cookie";
        const live = ctx.app.bus.subscribe(input.sessionId, stop, input.lastEventId, ctx.userId, person);
        const now = ctx.app.bus.lastId();
        const replayed = new Set<string>();
        const pending = [
          ...(await ctx.app.approvals.pending(input.sessionId)),
          ...(person ? await ctx.app.approvals.pendingFromScripts(ctx.userId) : []),
        ];
        for (const approval of pending) {
          if (replayed.has(approval.approval_id)) continue; // a page watching a script's own session
          replayed.add(approval.approval_id);
          yield tracked(now, { type: "approval_requested", approval } satisfies SessionEvent);
        }
        for await (const { id, event } of live) {
          if (event.type === "approval_requested" && replayed.has(event.approval.approval_id)) continue;
          yield tracked(id, event);
        }
      }),
  }),
  run: router({
    start: authed
      .input(z.object({ sessionId: Id, editor: z.boolean().optional(), threadId: Id.optional() }))
      .mutation(async ({ ctx, input }) => {
        admitWidgetRun(ctx);
        // The conversation a run is charged to must be the caller's own (refused as unauthorized otherwise).
        if (input.threadId) await ctx.app.agent.threads.require(ctx.userId, input.threadId);
        const run = await ctx.app.runs.start(ctx.userId, input.sessionId, {
          editor: input.editor ?? false,
          threadId: input.threadId,
          highestMode: ctx.caller.widget?.maxMode,
        });
        return { runId: run.id };
      }),
    authorize: authed
      .input(
        z.object({
          runId: Id,
          capability: z.string().min(1).max(200),
          args: z.unknown(),
          callId: Id,
          actor: Actor.optional(),
        }),
      )
      .mutation(({ ctx, input }) => {
        const actor = actingAs(ctx, input.actor);
        const refused = meterWidgetCalls(ctx, 1);
        if (refused) return refused;
        // On the page's socket a waiting call answers when it settles; over HTTP it is held, then pending.
        return ctx.app.ui.authorize(ctx.userId, { ...input, actor }, { hold: !ctx.socket });
      }),
    complete: authed
      .input(
        z.object({
          runId: Id,
          callId: Id,
          ok: z.boolean(),
          error: z.object({ code: ErrorCode, message: z.string().max(2000) }).optional(),
        }),
      )
      .mutation(({ ctx, input }) => ctx.app.ui.complete(ctx.userId, input)),
    /** After `authorize` allowed a `ui_run_workflow` call: starts its job from the authorised args. */
    startJob: authed
      .input(z.object({ runId: Id, callId: Id }))
      .mutation(({ ctx, input }) => ctx.app.ui.startJob(ctx.userId, input)),
    end: authed
      .input(z.object({ runId: Id }))
      .mutation(({ ctx, input }) => ctx.app.runs.end(ctx.userId, input.runId, "ended")),
    cancel: authed
      .input(z.object({ runId: Id }))
      .mutation(({ ctx, input }) => ctx.app.runs.end(ctx.userId, input.runId, "cancelled")),
    invoke: authed
      .input(
        z.object({
          runId: Id,
          module: z.string().min(1).max(300),
          export: z.string().min(1).max(200),
          args: z.unknown(),
          callId: z.string().min(1).max(200).optional(),
          actor: Actor.optional(),
        }),
      )
      .mutation(({ ctx, input }) => {
        const actor = actingAs(ctx, input.actor);
        const refused = meterWidgetCalls(ctx, 1);
        if (refused) return refused;
        return ctx.app.runs.invoke(ctx.userId, { ...input, actor }, { hold: !ctx.socket });
      }),
    /**
     * The calls of one worker batch in one procedure: each runs exactly as `invoke`, and answers stream
     * back in groups as they settle (`[{callId, answer}]`; a held call answers `{pending: true}`).
     */
    invokeMany: authed
      .input(
        z.object({
          runId: Id,
          calls: z.array(InvokeCall).min(1).max(MAX_BATCH_CALLS),
          actor: Actor.optional(),
        }),
      )
      .mutation(async function* ({ ctx, input }) {
        const actor = actingAs(ctx, input.actor);
        if (input.calls.length > ctx.app.config.maxBatchSize) {
          throw new TRPCError({
            code: "PAYLOAD_TOO_LARGE",
            message: batchTooLarge(ctx.app.config, input.calls.length),
          });
        }
        const refused = meterWidgetCalls(ctx, input.calls.length);
        if (refused) {
          yield input.calls.map((call) => ({ callId: call.callId, answer: refused }));
          return;
        }
        yield* invokeMany(ctx.app.runs, ctx.userId, { ...input, actor }, (capability, err) =>
          ctx.app.log("error", `capability ${capability} threw`, err),
        );
      }),
  }),
  approvals: router({
    respond: person
      .input(RespondInput)
      .mutation(({ ctx, input }) => ctx.app.approvals.respond(ctx.userId, input.approvalId, input.answer)),
    pending: authed.input(z.object({ sessionId: Id })).query(async ({ ctx, input }) => {
      await ctx.app.sessions.require(ctx.userId, input.sessionId);
      return { approvals: await ctx.app.approvals.pending(input.sessionId) };
    }),
  }),
  jobs: router({
    /**
     * The page's jobs list: the user's jobs, newest first, with workflow names and (small) inputs and
     * outputs; `before` a job id, the ones older than it (the next page); `workflow_id`, only that
     * workflow's; `status`, only those.
     */
    list: authed
      .input(
        z
          .object({
            limit: z.number().int().min(1).max(100).default(30),
            before: Id.optional(),
            workflow_id: Id.optional(),
            status: z.enum(JOB_STATUSES).optional(),
          })
          .default({ limit: 30 }),
      )
      .query(async ({ ctx, input }) => ({
        jobs: toWire(
          await ctx.app.jobs.list(ctx.userId, {
            limit: input.limit,
            before: input.before,
            workflow_id: input.workflow_id,
            status: input.status,
            outputs: true,
          }),
          "result",
        ),
      })),
  }),
  catalog: router({
    get: authed.input(z.object({ sessionId: Id })).query(async ({ ctx, input }) => {
      const session = await ctx.app.sessions.view(ctx.userId, input.sessionId);
      return {
        modules: describeModules(session.modules),
        packs: session.packs,
        /** What the sandbox needs to link the session's library packs (names and exports, never code). */
        packInfo: defaultLibrary().packInfo(session.packs),
      };
    }),
  }),
});

export type AppRouter = typeof appRouter;
