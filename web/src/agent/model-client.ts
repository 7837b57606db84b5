/**
 * The page's model client: each model turn is the `agent.turn` subscription on the page's socket (or
 * SSE over the HTTP fallback) with a request id of its own. The server holds the conversation, so only
 * what is new goes up (`appendSince`); its events come back in tracked batches, and tRPC resubscribes after a
 * drop with the last event id by itself, which resumes the same provider call. Stop (the signal) asks
 * the server to end the turn; the stream then ends with `cancelled`. Never throws.
 */
import { type ModelClient, type ModelEvent, TurnBatch } from "../../../shared/agent/messages.ts";
import { appendSince } from "../../../shared/agent/prompt.ts";
import type { Api } from "../transport.ts";

export function pageModelClient(api: Api, threadId: string, known: number): ModelClient {
  let sent = known;
  return {
    async *stream(request): AsyncGenerator<ModelEvent> {
      const { append, next } = appendSince(request.messages, sent);
      sent = next;
      const requestId = `turn_${crypto.randomUUID().replace(/-/g, "")}`;
      const queue: ModelEvent[] = [];
      let ended = false;
      let wake: (() => void) | undefined;
      const push = (event: ModelEvent) => {
        queue.push(event);
        if (event.type === "done" || event.type === "error") ended = true;
        wake?.();
      };
      const subscription = api.agent.turn.subscribe(
        { threadId, requestId, append, model: request.model ?? null },
        {
          onData: ({ data }) => {
            const batch = TurnBatch.safeParse(data);
            if (!batch.success) {
              push({ type: "error", code: "capability_failed", message: "The server sent an unreadable model event." });
              return;
            }
            for (const event of batch.data.events) push(event);
          },
          onError: () =>
            push({
              type: "error",
              code: "capability_failed",
              message: "The server could not stream this turn; send the request again.",
            }),
          onComplete: () => {
            if (!ended)
              push({ type: "error", code: "capability_failed", message: "The turn ended without an answer." });
          },
        },
      );
      const onAbort = () => void api.agent.stop.mutate({ requestId }).catch(() => {});
      request.signal.addEventListener("abort", onAbort, { once: true });
      try {
        for (;;) {
          const event = queue.shift();
          if (event) {
            yield event;
            if (event.type === "done" || event.type === "error") return;
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      } finally {
        request.signal.removeEventListener("abort", onAbort);
        subscription.unsubscribe();
      }
    },
  };
}
