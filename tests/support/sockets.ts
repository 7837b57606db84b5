/**
 * WebSocket clients for tests (Node 20 has no global WebSocket: the `ws` package is the client). A
 * typed tRPC client over a socket, as a signed-in page (cookie and the app's own Origin) or as a
 * script (the admin token in connectionParams), and a raw socket for hand-written protocol frames.
 */
import { createTRPCClient, createWSClient, type TRPCClient, wsLink } from "@trpc/client";
import WebSocket from "ws";
import type { AppRouter } from "../../server-bridge/trpc/router.ts";
import type { TestServer } from "./server.ts";

export interface SocketClient {
  api: TRPCClient<AppRouter>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export function socketUrl(server: TestServer, query = ""): string {
  return `${server.url.replace(/^http/, "ws")}/trpc${query}`;
}

/**
 * A tRPC client over one socket: `cookie` signs it in as the page would, `token` as a script (or, with
 * `origin`, as a page of that origin would: a widget's iframe sends its credential so).
 */
export function socketClient(
  server: TestServer,
  auth: { cookie: string } | { token: string; origin?: string },
): SocketClient {
  const headers: Record<string, string> =
    "cookie" in auth
      ? { cookie: auth.cookie, origin: server.url }
      : auth.origin === undefined
        ? {}
        : { origin: auth.origin };
  class HeaderSocket extends WebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  }
  const client = createWSClient({
    url: socketUrl(server),
    WebSocket: HeaderSocket as unknown as typeof globalThis.WebSocket,
    ...("token" in auth ? { connectionParams: { token: auth.token } } : {}),
    retryDelayMs: () => 50,
  });
  const close = () => client.close();
  return {
    api: createTRPCClient<AppRouter>({ links: [wsLink({ client })] }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A raw socket, open (or the HTTP status its upgrade was refused with). */
export function rawSocket(url: string, headers: Record<string, string> = {}): Promise<WebSocket | { refused: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once("open", () => resolve(socket));
    socket.once("unexpected-response", (_req, res) => {
      resolve({ refused: res.statusCode ?? 0 });
      res.resume();
    });
    socket.once("error", reject);
  });
}

/** Resolves with the close code once the socket closes. */
export function closed(socket: WebSocket): Promise<number> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.resolve(1006);
  return new Promise((resolve) => socket.once("close", (code) => resolve(code)));
}

/** The next JSON frame on a raw socket matching `test`. */
export function nextFrame<T>(socket: WebSocket, test: (frame: T) => boolean): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const text = data.toString();
      if (text === "PING" || text === "PONG") return;
      const frame = JSON.parse(text) as T;
      if (!test(frame)) return;
      socket.off("message", onMessage);
      resolve(frame);
    };
    socket.on("message", onMessage);
  });
}
