/**
 * Connection-level bounds of the HTTP server, before any request is parsed: how long a client may take
 * to send its headers and its whole request (Node's `headersTimeout` and `requestTimeout`, which end
 * when the request has been received: a long response, an event stream or a held call, is not a slow
 * request), and how many sockets one client address may hold open at once. A socket past the cap is
 * closed at once, before anything on it is read, so clients trickling bytes can never starve the rest.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";

export interface ConnectionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnectionsPerClient: number;
}

/** How often Node looks for requests past their deadlines: often enough for the shorter of the two. */
export function checkingIntervalMs(limits: Pick<ConnectionLimits, "headersTimeoutMs">): number {
  return Math.max(100, Math.min(5_000, Math.floor(limits.headersTimeoutMs / 4)));
}

/** Applies the timeouts and the per-address cap to `server`; returns how many sockets each address holds. */
export function limitConnections(server: Server, limits: ConnectionLimits): Map<string, number> {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const count = open.get(address) ?? 0;
    if (count >= limits.maxConnectionsPerClient) {
      // Closed before a byte is read: no request on it is ever parsed, let alone routed.
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
  return open;
}
