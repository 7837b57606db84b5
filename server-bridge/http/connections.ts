/**
 * Connection-level bounds of the HTTP server: how long a client may take to send its headers (Node's
 * `headersTimeout`) and then its body (a deadline per request, which ends once the body has arrived,
 * read or not: a long answer, an event stream or a held call, is not a slow request), and how many
 * sockets one client address may hold open at once. A socket past the cap is closed at once, before
 * anything on it is read, so clients trickling bytes can never starve the rest.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { formatMs } from "../../shared/protocol/durations.ts";
import { refuse } from "./respond.ts";

export interface ConnectionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnectionsPerClient: number;
}

/** How often Node looks for requests past their deadlines: often enough for the shorter of the two. */
export function checkingIntervalMs(limits: Pick<ConnectionLimits, "headersTimeoutMs">): number {
  return Math.max(100, Math.min(5_000, Math.floor(limits.headersTimeoutMs / 4)));
}

/** How long a request may take to arrive: `of` it, and the longest that can be (Node's backstop). */
export interface ArrivalDeadlines {
  of(req: IncomingMessage): number;
  longestMs: number;
}

/** The longest a timer can wait (setTimeout fires at once past it). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Applies the deadlines and the per-address cap to `server`; returns how many sockets each address holds.
 * `deadlines` may give a request longer than `requestTimeoutMs` to arrive (an upload, by its size).
 */
export function limitConnections(
  server: Server,
  limits: ConnectionLimits,
  deadlines: ArrivalDeadlines = { of: () => limits.requestTimeoutMs, longestMs: limits.requestTimeoutMs },
): Map<string, number> {
  server.headersTimeout = limits.headersTimeoutMs;
  // Each request's deadline is its own, from its headers on; Node's, one for all, is the backstop for
  // what never reaches a handler.
  server.requestTimeout = Math.max(deadlines.longestMs, limits.requestTimeoutMs);
  server.on("request", (req: IncomingMessage, res: ServerResponse) => endIfNotArrived(req, res, deadlines.of(req)));
  // An expectation other than 100-continue: refused and closed (Node's own 417 keeps the socket).
  server.on("checkExpectation", (_req: IncomingMessage, res: ServerResponse) =>
    refuse(res, 417, "invalid_call", "Only `Expect: 100-continue` is understood."),
  );
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

/** How long a client that was answered 408 has to read it before the request is ended under it. */
const LINGER_MS = 1_000;

/**
 * Ends `req` if its body is still arriving `deadlineMs` after its headers, whether it was answered or
 * not (a handler may answer without reading the body: the body still has its deadline): 408 with
 * `Connection: close` when nothing was answered yet, and the request destroyed a moment later; else the
 * request destroyed at once. Destroying it ends its socket and tells a reader of its body (once
 * answered, a request is no longer Node's to abort when its socket closes).
 */
function endIfNotArrived(req: IncomingMessage, res: ServerResponse, deadlineMs: number): void {
  // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 6.3): nothing arrives
  // after its headers, so most requests (pages, assets, event streams) need no timer.
  const bodied = req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
  if (req.complete || !bodied) return;
  const timer = setTimeout(
    () => {
      if (req.complete) return;
      if (res.headersSent) {
        req.destroy();
        return;
      }
      refuse(res, 408, "timeout", `The request did not arrive within ${formatMs(deadlineMs)}.`);
      res.once("finish", () => setTimeout(() => req.destroy(), LINGER_MS).unref());
    },
    Math.min(deadlineMs, MAX_TIMER_MS),
  );
  const stop = () => clearTimeout(timer);
  req.once("end", stop).once("close", stop);
}
