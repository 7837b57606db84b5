/**
 * A tRPC client to the server, typed from the server's router (type import only), over one WebSocket
 * per page (DESIGN.md section 8): calls, approvals, mode changes and the event subscription all ride
 * it. When the server refuses or cannot complete the upgrade, the client falls back to HTTP `/trpc` by
 * itself (and says so, `state()`): the event stream over SSE, control calls and lone capability calls
 * on an unbatched link, and everything else batched and streamed (a worker batch of several calls is
 * one streamed `run.invokeMany`, which only HTTP carries). After a drop the socket reconnects with
 * backoff and the subscription resumes from its last event id; calls that were in flight are sent
 * again by `resend` with their same callId.
 *
 * The signed-in page authenticates with its login cookie (nothing to pass). A widget's iframe passes
 * its credential (`auth`): it goes in the socket's `connectionParams` and in an `Authorization`
 * header over HTTP (SSE too, through a fetch-based EventSource), never in a URL and never in a cookie.
 */
import {
  createTRPCClient,
  createWSClient,
  httpBatchStreamLink,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  TRPCClientError,
  type TRPCLink,
  wsLink,
} from "@trpc/client";
import { observable, type Unsubscribable } from "@trpc/server/observable";
import { EventSource as FetchEventSource } from "eventsource";
import type { AppRouter } from "../../server-bridge/trpc/router.ts";

export type TransportState =
  | { kind: "connecting" }
  | { kind: "websocket"; connected: boolean }
  | { kind: "http"; reason: string }
  /** The server closed the socket for good (signed out, a credential revoked or expired): no reconnecting. */
  | { kind: "closed"; reason: string };

/** Why a widget's credential stopped opening the API (the reason http/sockets.ts closes its socket with). */
const CREDENTIAL_ENDED = "credential not valid (unknown, revoked or expired)";

/** Close codes the server ends a socket with when its credential no longer holds (http/sockets.ts). */
const ENDED = new Set([4401, 4403]);

export type Api = ReturnType<typeof createTRPCClient<AppRouter>>;

export interface Transport {
  readonly api: Api;
  /** Whether calls travel over the socket (decided once, at the first connection). */
  overWebSocket(): Promise<boolean>;
  state(): TransportState;
  onState(listener: (state: TransportState) => void): () => void;
}

/** How long the first upgrade may take before the client uses HTTP instead. */
const FIRST_CONNECT_MS = 5_000;

const UNBATCHED = new Set(["approvals.respond", "session.setMode", "session.revoke", "run.invoke"]);

export function createTransport(options: { auth?: string | undefined } = {}): Transport {
  let state: TransportState = { kind: "connecting" };
  const listeners = new Set<(state: TransportState) => void>();
  const setState = (next: TransportState) => {
    state = next;
    for (const listener of listeners) listener(next);
  };
  const auth = options.auth;
  const socket = createWSClient({
    url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/trpc`,
    keepAlive: { enabled: true, intervalMs: 10_000, pongTimeoutMs: 5_000 },
    retryDelayMs: (attempt) => (attempt === 0 ? 0 : Math.min(250 * 2 ** attempt, 10_000)),
    ...(auth === undefined ? {} : { connectionParams: { token: auth } }),
    onClose(cause) {
      if (cause?.code === undefined || !ENDED.has(cause.code)) return;
      // tRPC passes the close event itself, whose reason says why (its type names only the code).
      const reason = (cause as { reason?: unknown }).reason;
      closed(typeof reason === "string" && reason ? reason : "closed by the server");
    },
  });
  /** The server will not have this page's credential again: stop reconnecting, and say why. */
  const closed = (reason: string) => {
    if (state.kind === "closed") return;
    setState({ kind: "closed", reason });
    void socket.close();
  };

  /** Settles once: the socket opened (WebSocket), or the first attempt failed or took too long (HTTP). */
  const decided: Promise<TransportState["kind"]> = new Promise((resolve) => {
    let done = false;
    const fallback = (reason: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void socket.close();
      setState({ kind: "http", reason });
      resolve("http");
    };
    const timer = setTimeout(
      () => fallback("the server did not complete the WebSocket upgrade in time"),
      FIRST_CONNECT_MS,
    );
    socket.connectionState.subscribe({
      next(connection) {
        if (!done) {
          if (connection.state === "pending") {
            done = true;
            clearTimeout(timer);
            setState({ kind: "websocket", connected: true });
            resolve("websocket");
          } else if (connection.error) fallback("the server refused the WebSocket upgrade");
          return;
        }
        if (state.kind === "websocket") {
          const connected = connection.state === "pending";
          if (connected !== state.connected) setState({ kind: "websocket", connected });
        }
      },
    });
  });

  const headers = auth === undefined ? undefined : () => ({ authorization: `Bearer ${auth}` });
  const withAuth = { url: "/trpc", ...(headers ? { headers } : {}) };
  const subscriptions =
    auth === undefined
      ? httpSubscriptionLink({ url: "/trpc" })
      : httpSubscriptionLink({
          url: "/trpc",
          // The browser's own EventSource cannot send a header: this one is fetch-based and can.
          EventSource: FetchEventSource as unknown as typeof globalThis.EventSource,
          eventSourceOptions: {
            fetch: (input: RequestInfo | URL, init?: RequestInit) =>
              fetch(input, { ...init, headers: { ...(init?.headers ?? {}), authorization: `Bearer ${auth}` } }),
          } as EventSourceInit,
        });
  const overHttp: TRPCLink<AppRouter> = splitLink({
    condition: (op) => op.type === "subscription",
    true: subscriptions,
    false: splitLink({
      condition: (op) => UNBATCHED.has(op.path),
      true: httpLink(withAuth),
      false: httpBatchStreamLink({ ...withAuth, maxItems: 1000 }),
    }),
  });
  const overSocket: TRPCLink<AppRouter> = wsLink({ client: socket });

  /** Waits for the transport to be decided, then hands each operation to the socket or to HTTP. */
  const chosen: TRPCLink<AppRouter> = (runtime) => {
    const viaSocket = overSocket(runtime);
    const viaHttp = overHttp(runtime);
    return (operation) =>
      observable((observer) => {
        let inner: Unsubscribable | undefined;
        let stopped = false;
        void decided.then((kind) => {
          if (stopped) return;
          // run.invokeMany streams an async generator, which tRPC's socket adapter refuses: HTTP only.
          const link = kind === "websocket" && operation.op.path !== "run.invokeMany" ? viaSocket : viaHttp;
          inner = link(operation).subscribe({
            next: (value) => observer.next(value),
            error: (err) => {
              // Over HTTP a revoked or expired credential has no socket to end: the first call refused
              // for it (401) ends the transport as a closed socket would. (Not a signed-in page's.)
              // The guard's own text speaks to a person signing in; a widget's reason is its credential's.
              if (auth !== undefined && httpStatusOf(err) === 401) closed(CREDENTIAL_ENDED);
              observer.error(err);
            },
            complete: () => observer.complete(),
          });
        });
        return () => {
          stopped = true;
          inner?.unsubscribe();
        };
      });
  };

  return {
    api: createTRPCClient<AppRouter>({ links: [chosen] }),
    overWebSocket: () => decided.then((kind) => kind === "websocket"),
    state: () => state,
    onState(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The HTTP status of a tRPC failure, when the server sent one. */
export function httpStatusOf(err: unknown): number | undefined {
  if (err instanceof TRPCClientError) {
    const data = err.data as { httpStatus?: number } | undefined;
    if (data?.httpStatus) return data.httpStatus;
    const meta = err.meta as { response?: { status?: number } } | undefined;
    return meta?.response?.status;
  }
  return undefined;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
