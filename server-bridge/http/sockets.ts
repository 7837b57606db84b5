/**
 * The page's data plane (DESIGN.md section 8): tRPC over one WebSocket per page, on `/trpc`, served by
 * tRPC's own adapter over the `ws` package in `noServer` mode, so every upgrade passes our guards first:
 *
 * - the `Host` check (DNS rebinding), and an `Origin` that is exactly the app's own: a WebSocket is not
 *   covered by CORS, so any page could otherwise open one to 127.0.0.1 with the user's cookies;
 * - a browser is authenticated by its login cookie at the upgrade; a script (no cookie, no Origin or
 *   our own) by an API token (or the admin token) in `connectionParams` within `AUTH_DEADLINE_MS`, else it is closed;
 *   such sockets waiting to authenticate are capped, and so are sockets per user;
 * - a widget's iframe (our own Origin, no cookie: third-party cookies are never needed) by its widget
 *   credential in `connectionParams`; capped per credential, closed when the credential expires or its
 *   widget is revoked (here, or by another process: a sweep reads the store every few seconds);
 * - per connection: message size (the body cap; `ws` closes with 1009 past it), calls in flight (the
 *   tRPC middleware in trpc/init.ts refuses past the batch cap, the socket stays usable), a send
 *   buffer that may not grow without limit when the page reads slowly (the socket is closed; the page
 *   reconnects and re-sends), and a ping timeout that closes dead connections.
 *
 * A closing socket never ends a run: runs outlive their sockets, and a call re-sent with its callId on
 * the next socket joins the first attempt.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { TRPCError } from "@trpc/server";
import { applyWSSHandler } from "@trpc/server/adapters/ws";
import { type WebSocket, WebSocketServer } from "ws";
import type { ErrorCode } from "../../shared/protocol/errors.ts";
import type { AppServices } from "../app-services.ts";
import type { Caller } from "../auth/caller.ts";
import { COOKIE_NAME, readCookie } from "../auth/logins.ts";
import type { RequestContext, SocketState } from "../trpc/init.ts";
import { appRouter } from "../trpc/router.ts";
import { callerOfToken, hostAllowed } from "./guard.ts";

/** A script's socket must authenticate (connectionParams) within this long. */
export const AUTH_DEADLINE_MS = 5_000;
/** Sockets still waiting to authenticate, over all clients. */
const MAX_UNAUTHENTICATED = 32;
/** Open sockets per user (tabs, scripts). */
const MAX_SOCKETS_PER_USER = 16;

interface Entry {
  state: SocketState;
  /** Who the socket acts for: known at the upgrade (cookie) or once connectionParams arrive (token). */
  caller: Caller | undefined;
  /** A browser opened it (an Origin header, which the upgrade checked is our own). */
  fromPage: boolean;
  authTimer?: ReturnType<typeof setTimeout>;
  /** A widget credential's socket closes when the credential expires. */
  expiryTimer?: ReturnType<typeof setTimeout>;
}

export interface SocketServer {
  /** Open sockets (all users). */
  count(): number;
  /**
   * Closes the sockets of a login (sign-out), a user, or a widget (revoked); `abrupt` drops them
   * without a close frame.
   */
  closeFor(match: SocketMatch, reason: string, abrupt?: boolean): number;
  close(): Promise<void>;
}

export interface SocketMatch {
  loginId?: string;
  userId?: string;
  widgetId?: string;
}

/** Sockets one widget credential (one iframe) may hold open; a widget's visitors share its user, not this. */
const MAX_SOCKETS_PER_CREDENTIAL = 4;
/** How often open widget sockets are checked against the store (a revocation by the CLI, another process). */
const WIDGET_SWEEP_MS = 2_000;

export function attachSockets(app: AppServices, server: Server, hosts: () => Set<string>): SocketServer {
  const entries = new Map<WebSocket, Entry>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: app.config.maxBodyBytes });
  // Per user, widget sockets aside: a widget's visitors all act as its user, and are capped per credential.
  const byUser = (userId: string) =>
    [...entries.values()].filter((e) => e.caller?.user === userId && e.caller.via !== "widget").length;
  const byCredential = (credentialId: string | undefined) =>
    [...entries.values()].filter((e) => e.caller?.via === "widget" && e.caller.session === credentialId).length;
  const unauthenticated = () => [...entries.values()].filter((e) => e.caller === undefined).length;

  const handler = applyWSSHandler({
    wss,
    router: appRouter,
    maxBatchSize: app.config.maxBatchSize,
    keepAlive: { enabled: true, pingMs: app.config.wsPingMs, pongWaitMs: Math.min(10_000, app.config.wsPingMs) },
    createContext: async ({ res: socket, info }): Promise<RequestContext> => {
      const entry = entries.get(socket);
      if (!entry) throw new Error("a socket the upgrade did not register");
      if (entry.caller === undefined) {
        const token = info.connectionParams?.token;
        const found = typeof token === "string" ? await callerOfToken(app, token) : undefined;
        // The API's tokens (admin or API) and widget credentials: the MCP token opens /mcp only.
        if (found?.via !== "bearer" && found?.via !== "api" && found?.via !== "widget") {
          const reason = "credential not valid (unknown, revoked or expired)";
          // Closed with a code the client reads (after tRPC's refusal below is sent): a page stops
          // reconnecting with a credential that will never open again, and says why.
          setImmediate(() => socket.close(4401, reason));
          throw unauthorized(`connectionParams.token is not a valid API or admin token or widget ${reason}.`);
        }
        if (found.via === "widget") {
          if (byCredential(found.session) >= MAX_SOCKETS_PER_CREDENTIAL) throw unauthorized(tooManyWidgetSockets());
          const expires = (await app.widgets.identify(token as string))?.expiresAt ?? Date.now();
          entry.expiryTimer = setTimeout(() => socket.close(4401, "widget credential expired"), expires - Date.now());
          entry.expiryTimer.unref?.();
        } else if (byUser(found.user) >= MAX_SOCKETS_PER_USER) throw unauthorized(tooManySockets());
        entry.caller = found;
        clearTimeout(entry.authTimer);
      }
      // A cookie socket is the person's page (the upgrade required our own Origin); a widget's iframe
      // is its person's page when a browser opened it from our origin; a script's socket never is.
      const sameOrigin = entry.caller.via === "cookie" || (entry.caller.via === "widget" && entry.fromPage);
      return { app, caller: entry.caller, sameOrigin, socket: entry.state };
    },
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") app.log("error", `trpc ${path ?? "?"} failed`, error.cause ?? error);
    },
  });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    upgrade(req, socket, head).catch((err: unknown) => {
      app.log("error", "WebSocket upgrade failed", err);
      socket.destroy();
    });
  };
  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://upgrade.invalid");
    if (!app.config.webSockets)
      return refuse(socket, 404, "invalid_call", "WebSockets are turned off here; use HTTP /trpc.");
    if (url.pathname !== "/trpc") return refuse(socket, 404, "invalid_call", "WebSockets are served on /trpc only.");
    if (!hostAllowed(req, hosts())) return refuse(socket, 403, "unauthorized", "This Host is not served here.");
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host}`) {
      app.log("warn", "refused a WebSocket from a foreign origin", { origin });
      return refuse(socket, 403, "unauthorized", "Cross-origin WebSockets are refused.");
    }
    // A browser always sends Origin; only then is its cookie the person's. A script authenticates with
    // connectionParams (the client adds `connectionParams=1` to the URL).
    const loginId = origin === undefined ? undefined : readCookie(req.headers.cookie, COOKIE_NAME);
    const userId = loginId ? await app.logins.userOf(loginId) : undefined;
    // The login was read from the store: the client may have gone meanwhile.
    if (socket.destroyed) return;
    if (!userId && url.searchParams.get("connectionParams") !== "1") {
      return refuse(socket, 401, "unauthorized", "Sign in first, or send an API token in connectionParams.");
    }
    if (userId && byUser(userId) >= MAX_SOCKETS_PER_USER) return refuse(socket, 429, "unauthorized", tooManySockets());
    if (!userId && unauthenticated() >= MAX_UNAUTHENTICATED) {
      return refuse(socket, 503, "unauthorized", "Too many sockets are waiting to authenticate; try again shortly.");
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const entry: Entry = {
        state: { inFlight: 0 },
        caller: userId ? { user: userId, via: "cookie", session: loginId } : undefined,
        fromPage: origin !== undefined,
      };
      entries.set(ws, entry);
      if (!userId) {
        entry.authTimer = setTimeout(() => {
          if (entry.caller === undefined) ws.close(4401, "not authenticated in time");
        }, AUTH_DEADLINE_MS);
      }
      guardSends(ws, socket, app.config.maxBodyBytes * 4, () =>
        app.log("warn", "closed a socket whose reader fell behind", { userId: entry.caller?.user }),
      );
      ws.once("close", () => {
        clearTimeout(entry.authTimer);
        clearTimeout(entry.expiryTimer);
        entries.delete(ws);
      });
      wss.emit("connection", ws, req);
    });
  };
  server.on("upgrade", onUpgrade);
  const stopLogins = app.logins.onEnded((loginId) => closeFor({ loginId }, "signed out"));
  const stopWidgets = app.widgets.onRevoked((widgetId) => closeFor({ widgetId }, "widget revoked"));
  const sweep = setInterval(() => sweepWidgets(app, entries), WIDGET_SWEEP_MS);
  sweep.unref();

  function closeFor(match: SocketMatch, reason: string, abrupt = false): number {
    let closed = 0;
    for (const [ws, entry] of entries) {
      const hit =
        (match.loginId !== undefined && entry.caller?.via === "cookie" && entry.caller.session === match.loginId) ||
        (match.userId !== undefined && entry.caller?.user === match.userId) ||
        (match.widgetId !== undefined && entry.caller?.widget?.id === match.widgetId);
      if (hit) {
        if (abrupt) ws.terminate();
        else ws.close(4403, reason.slice(0, 100));
        closed++;
      }
    }
    return closed;
  }

  return {
    count: () => entries.size,
    closeFor,
    async close() {
      server.off("upgrade", onUpgrade);
      stopLogins();
      stopWidgets();
      clearInterval(sweep);
      handler.broadcastReconnectNotification();
      for (const ws of entries.keys()) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/**
 * Every outgoing frame passes here (tRPC's adapter writes with `send`; this wraps that one method of our
 * own socket object), for two things:
 * - a socket whose unsent data passes `limit` bytes (a reader that stopped reading) is closed instead of
 *   buffering without bound;
 * - frames sent in one turn (the answers to a batch of calls) leave in one write: the socket is corked at
 *   the turn's first frame and uncorked once its callbacks and promises have run (`nextTick`, so a lone
 *   answer is not delayed to the next event-loop phase). Each is still its own frame.
 */
function guardSends(ws: WebSocket, socket: Duplex, limit: number, onOverflow: () => void): void {
  const send = ws.send.bind(ws) as (data: unknown, ...rest: unknown[]) => void;
  let corked = false;
  ws.send = ((data: unknown, ...rest: unknown[]) => {
    if (ws.bufferedAmount > limit) {
      onOverflow();
      ws.terminate();
      return;
    }
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(() => {
        corked = false;
        socket.uncork();
      });
    }
    send(data, ...rest);
  }) as WebSocket["send"];
}

/**
 * Finds the widgets revoked (or credentials expired) behind this process's back, by the CLI or
 * another process sharing the store: their sockets close and their runs end, as a revocation here does.
 */
async function sweepWidgets(app: AppServices, entries: Map<WebSocket, Entry>): Promise<void> {
  const open = [...entries].filter(([, e]) => e.caller?.via === "widget");
  const widgets = new Set([...open.map(([, e]) => e.caller?.widget?.id ?? ""), ...app.runs.liveWidgets()]);
  if (widgets.size === 0) return;
  try {
    for (const widgetId of await app.widgets.revokedAmong([...widgets])) app.widgets.announceRevoked(widgetId);
    const valid = await app.widgets.stillValid(open.map(([, e]) => e.caller?.session ?? ""));
    for (const [ws, entry] of open) {
      if (entries.has(ws) && !valid.has(entry.caller?.session ?? "")) ws.close(4403, "widget credential revoked");
    }
  } catch (err) {
    // A busy store (another process holding the write lock): the next sweep looks again.
    app.log("warn", "could not check widget sockets against the store; retrying", err);
  }
}

function tooManyWidgetSockets(): string {
  return `A widget's iframe may hold at most ${MAX_SOCKETS_PER_CREDENTIAL} open sockets; reload the host page.`;
}

function unauthorized(message: string): TRPCError {
  return new TRPCError({ code: "UNAUTHORIZED", message });
}

function tooManySockets(): string {
  return `A user may hold at most ${MAX_SOCKETS_PER_USER} open sockets; close a tab or a script first.`;
}

const STATUS_TEXT: Record<number, string> = {
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  429: "Too Many Requests",
  503: "Service Unavailable",
};

/** Answers an upgrade we refuse with a plain HTTP error (with its code) and closes the connection. */
function refuse(socket: Duplex, status: number, code: ErrorCode, message: string): void {
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Error"}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
