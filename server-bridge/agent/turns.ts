/**
 * Model turns on the server (DESIGN.md section 11). A host (the page over its socket, the CLI in
 * process) asks for the next turn of a thread with a request id and the messages that are new to the
 * server (the person's request, the tool results of the last turn). The first ask with a request id
 * stores them, writes the turn's assistant message as interrupted, checks the token budgets, and
 * calls the provider once; its events are buffered with ids for the turn (and a while after), so an
 * ask with the same request id (a socket that reconnected) joins the same call and resumes after the
 * last event it saw: the provider is never called twice. A joiner gets what was published since its
 * last batch as one batch; text is published as it streams, the rest with the turn's end. When the
 * turn ends, the assistant message is written whole with its tokens (and, if it failed, why). A dropped socket never stops a
 * turn; `stop` does.
 */
import type { AgentMessage, ModelEvent, TokenUsage, ToolCall, TurnEnd } from "../../shared/agent/messages.ts";
import { AGENT_SYSTEM_PROMPT } from "../../shared/agent/prompt.ts";
import { isCodedError } from "../../shared/protocol/errors.ts";
import type { AppServices } from "../app-services.ts";
import type { ModelRegistry } from "./models.ts";
import { agentTools, providerMessages, resolveImages } from "./request.ts";
import { type ThreadStore, type ThreadView, titleOf } from "./threads.ts";

export interface TurnAsk {
  threadId: string;
  requestId: string;
  append: readonly AgentMessage[];
  model?: string | null | undefined;
  /** A parent conversation that pays for this turn too (a child agent's, set only by hosts in this process). */
  chargeTo?: string | undefined;
  /** The namespaces the caller's actions may import (a widget's), when not all: the tools list only these. */
  modules?: readonly string[] | undefined;
}

export interface StampedModelEvent {
  id: string;
  event: ModelEvent;
}

interface Turn {
  userId: string;
  events: StampedModelEvent[];
  done: boolean;
  wake: Set<() => void>;
  controller: AbortController;
}

/** How long a finished turn's events stay joinable (a socket that reconnects late). */
const KEEP_MS = 2 * 60_000;
/** Events one turn buffers one by one; past it, text is published in chunks of at least OVERFLOW_CHARS. */
const MAX_EVENTS = 20_000;
const OVERFLOW_CHARS = 4096;

export class AgentTurns {
  readonly #turns = new Map<string, Turn>();

  constructor(
    private readonly app: AppServices,
    private readonly threads: ThreadStore,
    private readonly models: ModelRegistry,
  ) {}

  /**
   * The turn's events after `afterId` (all of them without it), live until it ends or `signal` aborts:
   * each batch is what was published since the last (one socket message for a turn's end, not three).
   */
  async *join(
    userId: string,
    ask: TurnAsk,
    signal: AbortSignal,
    afterId?: string | null,
  ): AsyncGenerator<StampedModelEvent[]> {
    const key = `${userId}:${ask.requestId}`;
    let turn = this.#turns.get(key);
    if (turn && turn.userId !== userId) return;
    if (!turn) {
      const started: Turn = { userId, events: [], done: false, wake: new Set(), controller: new AbortController() };
      this.#turns.set(key, started);
      void this.#run(started, ask).finally(() => {
        started.done = true;
        for (const wake of started.wake) wake();
        setTimeout(() => this.#turns.delete(key), KEEP_MS).unref?.();
      });
      turn = started;
    }
    const current = turn;
    let next = afterId ? current.events.findIndex((e) => e.id === afterId) + 1 : 0;
    for (;;) {
      if (next < current.events.length) {
        const batch = current.events.slice(next);
        next = current.events.length;
        yield batch;
      }
      if (current.done || signal.aborted) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          current.wake.delete(wake);
          signal.removeEventListener("abort", wake);
          resolve();
        };
        current.wake.add(wake);
        signal.addEventListener("abort", wake, { once: true });
      });
    }
  }

  /** Stop: ends the turn's provider call (the turn's message is kept, marked interrupted). */
  stop(userId: string, requestId: string): boolean {
    const turn = this.#turns.get(`${userId}:${requestId}`);
    if (!turn || turn.done) return false;
    turn.controller.abort();
    return true;
  }

  async #run(turn: Turn, ask: TurnAsk): Promise<void> {
    let sequence = 0;
    // A published event is never changed (a joiner may have it already): past MAX_EVENTS, text waits
    // here until there is enough of it, or another event or the turn's end comes.
    let overflow = "";
    const push = (event: ModelEvent) => {
      turn.events.push({ id: String(++sequence), event });
      for (const wake of turn.wake) wake();
    };
    const flushOverflow = () => {
      if (overflow) push({ type: "text", delta: overflow });
      overflow = "";
    };
    const publish = (event: ModelEvent) => {
      if (event.type !== "text" || turn.events.length < MAX_EVENTS) {
        flushOverflow();
        return push(event);
      }
      overflow += event.delta;
      if (overflow.length >= OVERFLOW_CHARS) flushOverflow();
    };
    // Text goes out as it comes. The turn's tool calls and usage are of use only with its end, so they
    // go out with it, once its message is stored: a page that reads the thread when it sees the end
    // finds the finished message, not the placeholder. (Order is kept: text after held events flushes them.)
    const held: ModelEvent[] = [];
    let failed = false;
    const emit = (event: ModelEvent) => {
      if (event.type === "error") failed = true;
      if (event.type === "text") {
        for (const earlier of held.splice(0)) publish(earlier);
        publish(event);
      } else held.push(event);
    };
    try {
      await this.#steps(turn, ask, emit, () => failed);
    } finally {
      for (const event of held) publish(event);
      flushOverflow();
    }
  }

  async #steps(turn: Turn, ask: TurnAsk, publish: (event: ModelEvent) => void, failed: () => boolean): Promise<void> {
    // Why the turn ended early, stored with its message: the host that asked may be gone (a reload).
    let ended: TurnEnd | undefined;
    const emit = (event: ModelEvent) => {
      if (event.type === "error") {
        const status = turn.controller.signal.aborted ? "stopped" : "failed";
        ended ??= { status, message: `${event.code}: ${event.message}` };
      }
      publish(event);
    };
    const fail = (code: Extract<ModelEvent, { type: "error" }>["code"], message: string) =>
      emit({ type: "error", code, message });
    const { userId } = turn;
    let seq: number;
    let thread: ThreadView;
    try {
      thread = await this.threads.require(userId, ask.threadId);
      const append = await resolveImages(this.app, userId, ask.append);
      const first = append.find((m) => m.role === "user");
      if (first?.role === "user" && thread.title === "New conversation") {
        const text = first.content.find((part) => part.type === "text");
        if (text?.type === "text") await this.threads.rename(userId, ask.threadId, titleOf(text.text));
      }
      const placeholder: AgentMessage = { role: "assistant", text: "", tool_calls: [], interrupted: true };
      const seqs = await this.threads.append(ask.threadId, [...append, placeholder]);
      seq = seqs[seqs.length - 1] as number;
    } catch (err) {
      const message = isCodedError(err) ? err.payload.message : "The conversation could not be stored.";
      if (!isCodedError(err)) this.app.log("error", "agent turn failed to start", err);
      return fail(isCodedError(err) ? err.payload.code : "capability_failed", message);
    }

    const text: string[] = [];
    const calls: ToolCall[] = [];
    const usage: TokenUsage = { input_tokens: 0, output_tokens: 0 };
    let finished = false;
    try {
      const budget = await this.#overBudget(userId, thread, ask.chargeTo);
      if (budget) return fail("capability_failed", budget);
      const resolved = await this.models.resolve(ask.model ?? thread.model);
      if (typeof resolved === "string") return fail("capability_unavailable", resolved);
      // Kept with the thread when the person picks another (each turn names it; most name the same one).
      if (ask.model && thread.model !== resolved.id) await this.threads.setModel(userId, ask.threadId, resolved.id);
      const stored = (await this.threads.messagesOf(thread)).map((m) => m.message);
      // The placeholder is the turn being made, not part of what the model reads.
      const messages = providerMessages(stored.slice(0, -1));
      for await (const event of resolved.adapter.stream({
        model: resolved.model,
        system: AGENT_SYSTEM_PROMPT,
        messages,
        tools: agentTools(this.app.config.actionTimeoutMs, ask.modules),
        maxOutputTokens: this.app.config.agent.stepTokens,
        signal: turn.controller.signal,
      })) {
        if (event.type === "text") text.push(event.delta);
        else if (event.type === "tool_call") calls.push(event.call);
        else if (event.type === "usage") {
          usage.input_tokens += event.usage.input_tokens;
          usage.output_tokens += event.usage.output_tokens;
        } else if (event.type === "done") finished = true;
        emit(event);
        if (event.type === "error") break;
      }
      if (!finished && !failed()) {
        if (turn.controller.signal.aborted) fail("cancelled", "Stopped by the user.");
        else fail("capability_failed", "The model's answer was cut off before it finished. Send the request again.");
      }
    } catch (err) {
      this.app.log("error", "agent turn failed", err);
      fail("capability_failed", "The model call failed on the server; nothing more is known.");
    } finally {
      const message: AgentMessage = { role: "assistant", text: text.join(""), tool_calls: finished ? calls : [] };
      if (!finished) message.interrupted = true;
      if (!finished && ended) message.ended = ended;
      try {
        await this.threads.complete(userId, ask.threadId, seq, message, usage, ask.chargeTo);
      } catch (err) {
        this.app.log("error", "agent turn could not be stored", err);
      }
    }
  }

  /** Why the next turn may not run (a budget spent: its thread's, the parent's it is charged to, the day's), or undefined. */
  async #overBudget(userId: string, own: ThreadView, chargeTo: string | undefined): Promise<string | undefined> {
    const { threadTokens, dailyTokens } = this.app.config.agent;
    const paying: [ThreadView, string][] = [[own, "This conversation"]];
    if (chargeTo)
      paying.push([await this.threads.require(userId, chargeTo), "The conversation that started this subtask"]);
    for (const [thread, whose] of paying) {
      const used = thread.usage.input_tokens + thread.usage.output_tokens;
      if (used >= threadTokens) {
        return `${whose} has used ${used} tokens, its budget is ${threadTokens} (AGENT_THREAD_TOKENS); start a new conversation.`;
      }
    }
    const today = await this.threads.usedToday(userId);
    if (today >= dailyTokens) {
      return `You have used ${today} tokens today, the daily budget is ${dailyTokens} (AGENT_DAILY_TOKENS); try again tomorrow.`;
    }
    return undefined;
  }
}
