/**
 * The event store behind Streamable HTTP resumption (the SDK's `eventStore` option), one per MCP
 * session, in memory and bounded: every SSE event the transport sends gets an id from here, and a
 * client whose stream dropped reconnects with `Last-Event-ID` and is sent what it missed on that
 * stream. The oldest events go first past `maxEvents` or `maxBytes`; a Last-Event-ID that has gone
 * (or never was) is answered 400 by the SDK, and the client starts a fresh stream.
 */
import type { EventStore } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

interface Stored {
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
}

export class BoundedEventStore implements EventStore {
  /** In insertion order, which is id order: ids are this store's own sequence numbers. */
  readonly #events = new Map<string, Stored>();
  #next = 0;
  #bytes = 0;

  constructor(
    private readonly limits: { maxEvents: number; maxBytes: number } = { maxEvents: 500, maxBytes: 2 << 20 },
  ) {}

  get size(): number {
    return this.#events.size;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = String(++this.#next);
    const bytes = JSON.stringify(message).length + streamId.length;
    this.#events.set(id, { streamId, message, bytes });
    this.#bytes += bytes;
    for (const [oldest, event] of this.#events) {
      if (this.#events.size <= this.limits.maxEvents && this.#bytes <= this.limits.maxBytes) break;
      if (oldest === id) break; // the newest event always stays
      this.#events.delete(oldest);
      this.#bytes -= event.bytes;
    }
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (!last) throw new Error("unknown event id"); // the SDK checked it first: not reached
    const after = Number(lastEventId);
    for (const [id, event] of this.#events) {
      // Priming events (an id with no message) are markers, not messages to send again.
      if (Number(id) <= after || event.streamId !== last.streamId || !("jsonrpc" in event.message)) continue;
      await send(id, event.message);
    }
    return last.streamId;
  }
}
