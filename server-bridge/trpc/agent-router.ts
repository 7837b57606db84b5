/**
 * The agent's procedures (DESIGN.md section 11): threads (list, create, rename, delete, their
 * messages, why a request ended early), the model list, and a model turn as a subscription on the page's socket (or SSE over the
 * HTTP fallback): each event `tracked()` with its id, so a resubscription with the same request id
 * resumes the same provider call after the last event it saw. Keys never leave the server.
 */
import { tracked } from "@trpc/server";
import { z } from "zod";
import { AgentMessage, type TurnBatch, TurnEnd } from "../../shared/agent/messages.ts";
import { NO_PROVIDER } from "../agent/models.ts";
import { resolveImages } from "../agent/request.ts";
import { authed, router } from "./init.ts";

const Id = z.string().min(1).max(200);

export const agentRouter = router({
  /** Whether a provider is configured, at once (the page's first tab; `status` may wait on a provider's model list). */
  configured: authed.query(({ ctx }) => ({ configured: ctx.app.agent.models.configured() })),
  /** Whether a provider is configured, and if not, exactly what to set. */
  status: authed.query(async ({ ctx }) => {
    const { models } = ctx.app.agent;
    if (!models.configured()) return { configured: false as const, message: NO_PROVIDER, models: [] };
    return { configured: true as const, models: await models.list(), stepCap: ctx.app.config.agent.stepCap };
  }),
  threads: router({
    list: authed.query(async ({ ctx }) => ({ threads: await ctx.app.agent.threads.list(ctx.userId) })),
    /** The user's conversations whose title or messages hold `query`, newest first, each with where. */
    search: authed
      .input(z.object({ query: z.string().trim().min(1).max(200) }))
      .query(async ({ ctx, input }) => ({ found: await ctx.app.agent.threads.search(ctx.userId, input.query) })),
    create: authed
      .input(z.object({ title: z.string().max(200).optional() }).default({}))
      .mutation(({ ctx, input }) => ctx.app.agent.threads.create(ctx.userId, input.title)),
    get: authed.input(z.object({ threadId: Id })).query(async ({ ctx, input }) => ({
      thread: await ctx.app.agent.threads.require(ctx.userId, input.threadId),
      messages: await ctx.app.agent.threads.messages(ctx.userId, input.threadId),
    })),
    /** Stores tool results a request ended with (no model turn carried them); only tool results. */
    append: authed
      .input(z.object({ threadId: Id, messages: z.array(AgentMessage).max(60) }))
      .mutation(async ({ ctx, input }) => {
        await ctx.app.agent.threads.require(ctx.userId, input.threadId);
        const results = input.messages.filter((message) => message.role === "tool");
        const resolved = await resolveImages(ctx.app, ctx.userId, results);
        return { seqs: await ctx.app.agent.threads.append(input.threadId, resolved) };
      }),
    /** Records why the latest request ended without a final answer (the page's loop knows: Stop, the step cap...). */
    end: authed.input(z.object({ threadId: Id, ended: TurnEnd })).mutation(async ({ ctx, input }) => ({
      recorded: await ctx.app.agent.threads.end(ctx.userId, input.threadId, input.ended),
    })),
    rename: authed
      .input(z.object({ threadId: Id, title: z.string().trim().min(1).max(200) }))
      .mutation(({ ctx, input }) => ctx.app.agent.threads.rename(ctx.userId, input.threadId, input.title)),
    delete: authed.input(z.object({ threadId: Id })).mutation(async ({ ctx, input }) => {
      await ctx.app.agent.threads.delete(ctx.userId, input.threadId);
      return { deleted: true };
    }),
  }),
  /**
   * The next model turn of a thread, streamed as batches `{events}` (what was published since the last
   * one), each tracked with the id of its last event; joining with the same requestId resumes it.
   */
  turn: authed
    .input(
      z.object({
        threadId: Id,
        requestId: Id,
        append: z.array(AgentMessage).max(60),
        model: z.string().max(300).nullish(),
        lastEventId: z.string().max(100).nullish(),
      }),
    )
    .subscription(async function* ({ ctx, input, signal }) {
      const stop = signal ?? new AbortController().signal;
      // A widget's sessions mount only its modules: its model is told of those alone.
      const ask = { ...input, modules: ctx.caller.via === "widget" ? ctx.caller.widget?.modules : undefined };
      for await (const batch of ctx.app.agent.turns.join(ctx.userId, ask, stop, input.lastEventId)) {
        const last = batch[batch.length - 1] as { id: string };
        yield tracked(last.id, { events: batch.map(({ event }) => event) } satisfies TurnBatch);
      }
    }),
  /** Stop: ends a turn's provider call (its message is kept, marked interrupted). */
  stop: authed
    .input(z.object({ requestId: Id }))
    .mutation(({ ctx, input }) => ({ stopped: ctx.app.agent.turns.stop(ctx.userId, input.requestId) })),
});
