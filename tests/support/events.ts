/** Collects a session's event stream in a test, with a bounded wait for the next matching event. */
import type { SessionEvent } from "../../shared/protocol/server.ts";
import type { TestServer } from "./server.ts";

export interface EventLog {
  events: SessionEvent[];
  next<T extends SessionEvent["type"]>(type: T, timeoutMs?: number): Promise<Extract<SessionEvent, { type: T }>>;
  [Symbol.dispose](): void;
}

type Client = Awaited<ReturnType<TestServer["browser"]>>;

export async function watchEvents(client: Client, sessionId: string): Promise<EventLog> {
  const events: SessionEvent[] = [];
  let consumed = 0;
  const waiters = new Set<() => void>();
  let opened!: () => void;
  const started = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const sub = client.session.events.subscribe(
    { sessionId },
    {
      onStarted: () => opened(),
      // Each event is tracked(): `{id, data}`.
      onData: ({ data }) => {
        events.push(data as SessionEvent);
        for (const wake of waiters) wake();
      },
    },
  );
  await started;
  return {
    events,
    async next(type, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (let i = consumed; i < events.length; i++) {
          const event = events[i] as SessionEvent;
          if (event.type === type) {
            consumed = i + 1;
            return event as never;
          }
        }
        if (Date.now() > deadline)
          throw new Error(`no ${type} event within ${timeoutMs} ms; saw ${JSON.stringify(events.map((e) => e.type))}`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 50);
        });
      }
    },
    [Symbol.dispose]() {
      sub.unsubscribe();
    },
  };
}
