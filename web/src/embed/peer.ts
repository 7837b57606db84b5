/**
 * One side of the iframe <-> host channel (shared/embed/protocol.ts), the same on both sides: a
 * message is used only if it comes from the one window this side talks to (`event.source`), from an
 * allowed origin (`event.origin`), and parses as one of the messages that side may receive. Anything
 * else is ignored and counted by reason, never answered. Every message sent names its exact target
 * origin, so it is delivered only if that window still shows that origin.
 */
import type { z } from "zod";

export type IgnoredReason = "source" | "origin" | "malformed";

export interface PeerStats {
  /** Messages ignored so far, by why. */
  ignored: Record<IgnoredReason, number>;
}

export interface Peer {
  stats(): PeerStats;
  dispose(): void;
  /** For tests and diagnostics: called with each ignored message's reason. */
  onIgnored?: (reason: IgnoredReason) => void;
}

export interface PeerOptions<TSchema extends z.ZodType> {
  /** The window messages are received on (this side's own). */
  self: Window;
  /** The one window this side talks to (the iframe's parent; the host's iframe's contentWindow). */
  peer(): MessageEventSource | null | undefined;
  /** Whether a message's origin is allowed. */
  allows(origin: string): boolean;
  schema: TSchema;
  onMessage(message: z.infer<TSchema>, origin: string): void;
}

export function listenToPeer<TSchema extends z.ZodType>(options: PeerOptions<TSchema>): Peer {
  const ignored: Record<IgnoredReason, number> = { source: 0, origin: 0, malformed: 0 };
  const peer: Peer = {
    stats: () => ({ ignored: { ...ignored } }),
    dispose: () => options.self.removeEventListener("message", listener),
  };
  const ignore = (reason: IgnoredReason) => {
    ignored[reason]++;
    peer.onIgnored?.(reason);
  };
  const listener = (event: MessageEvent) => {
    const from = options.peer();
    if (!from || event.source !== from) return ignore("source");
    if (!options.allows(event.origin)) return ignore("origin");
    const parsed = options.schema.safeParse(event.data);
    if (!parsed.success) return ignore("malformed");
    options.onMessage(parsed.data, event.origin);
  };
  options.self.addEventListener("message", listener);
  return peer;
}

/** Posts `message` to `target`, delivered only if it shows exactly `origin`. */
export function postTo<TMessage>(target: MessageEventSource | Window, origin: string, message: TMessage): void {
  (target as Window).postMessage(message, origin);
}
