/**
 * One side of the iframe <-> host channel (shared/embed/protocol.ts), the same on both sides. Until
 * the host's `connect`, the two windows post to each other: a message is used only if it comes from
 * the one window this side talks to (`event.source`), from an allowed origin (`event.origin`), and
 * parses as one of the messages that side may receive; every message sent names its exact target
 * origin, so it is delivered only if that window still shows that origin. `connect` hands the iframe
 * one end of a MessageChannel, and from then on both sides talk over its two ports only (a port
 * message goes straight between the two pages' processes: a round trip took 0.2 ms where the windows'
 * took 0.7 ms); its messages are still parsed, and window messages are then ignored as from another
 * source. Anything ignored is counted by reason, never answered.
 */
import type { z } from "zod";

export type IgnoredReason = "source" | "origin" | "malformed";

export interface PeerStats {
  /** Messages ignored so far, by why. */
  ignored: Record<IgnoredReason, number>;
}

export interface Peer {
  stats(): PeerStats;
  /** From now on, hears and speaks over `port` only (one end of the channel `connect` set up with `origin`); once per peer. */
  open(port: MessagePort, origin: string): void;
  /** Posts over the channel; false before it is open. */
  post(message: unknown): boolean;
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
  /** `ports`: those the message carried (only `connect` may carry one); `origin`: the peer's, also over the channel. */
  onMessage(message: z.infer<TSchema>, origin: string, ports: readonly MessagePort[]): void;
}

export function listenToPeer<TSchema extends z.ZodType>(options: PeerOptions<TSchema>): Peer {
  const ignored: Record<IgnoredReason, number> = { source: 0, origin: 0, malformed: 0 };
  let channel: MessagePort | undefined;
  const peer: Peer = {
    stats: () => ({ ignored: { ...ignored } }),
    open(port, origin) {
      channel = port;
      port.onmessage = (event) => {
        const parsed = options.schema.safeParse(event.data);
        if (!parsed.success) return ignore("malformed");
        options.onMessage(parsed.data, origin, []);
      };
    },
    post(message) {
      channel?.postMessage(message);
      return channel !== undefined;
    },
    dispose() {
      options.self.removeEventListener("message", listener);
      channel?.close();
    },
  };
  const ignore = (reason: IgnoredReason) => {
    ignored[reason]++;
    peer.onIgnored?.(reason);
  };
  const listener = (event: MessageEvent) => {
    const from = options.peer();
    if (!from || event.source !== from || channel) return ignore("source");
    if (!options.allows(event.origin)) return ignore("origin");
    const parsed = options.schema.safeParse(event.data);
    if (!parsed.success) return ignore("malformed");
    options.onMessage(parsed.data, event.origin, event.ports);
  };
  options.self.addEventListener("message", listener);
  return peer;
}

/** Posts `message` to `target`, delivered only if it shows exactly `origin` (with `transfer`, e.g. a port). */
export function postTo<TMessage>(
  target: MessageEventSource | Window,
  origin: string,
  message: TMessage,
  transfer: Transferable[] = [],
): void {
  (target as Window).postMessage(message, origin, transfer);
}
