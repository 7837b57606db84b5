/** The agent's server side: stored threads, model turns over the configured providers, the model list. */

import type { ModelClient, ModelEvent } from "../../shared/agent/messages.ts";
import { appendSince } from "../../shared/agent/prompt.ts";
import { newId } from "../../shared/gate/approvals.ts";
import type { AppServices } from "../app-services.ts";
import { ModelRegistry } from "./models.ts";
import type { ProviderAdapter } from "./providers/types.ts";
import { ThreadStore } from "./threads.ts";
import { AgentTurns } from "./turns.ts";

export interface AgentServices {
  threads: ThreadStore;
  turns: AgentTurns;
  models: ModelRegistry;
}

export function createAgentServices(app: AppServices, adapters: readonly ProviderAdapter[]): AgentServices {
  const threads = new ThreadStore(app.store);
  const models = new ModelRegistry(adapters, app.config.agent);
  return { threads, models, turns: new AgentTurns(app, threads, models) };
}

/**
 * A model client for hosts in this process (the CLI, a subtask): each turn is a turn of a stored
 * thread, exactly as the page's are over its socket; Stop (the signal) stops the provider call.
 */
export function threadModelClient(
  agent: AgentServices,
  userId: string,
  threadId: string,
  options: { model?: string | undefined; known?: number; chargeTo?: string | undefined } = {},
): ModelClient {
  let known = options.known ?? 0;
  return {
    async *stream(request): AsyncGenerator<ModelEvent> {
      const { append, next } = appendSince(request.messages, known);
      known = next;
      const requestId = newId("turn");
      const onAbort = () => agent.turns.stop(userId, requestId);
      request.signal.addEventListener("abort", onAbort, { once: true });
      try {
        const ask = { threadId, requestId, append, model: request.model ?? options.model, chargeTo: options.chargeTo };
        for await (const batch of agent.turns.join(userId, ask, new AbortController().signal)) {
          for (const { event } of batch) yield event;
        }
      } finally {
        request.signal.removeEventListener("abort", onAbort);
      }
    },
  };
}
