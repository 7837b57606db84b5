/**
 * Widgets for tests, through their real surfaces: registered with the admin token (`widgets.add`),
 * tokens minted server to server (`POST /embed/token` with the mint key), exchanged as the widget's
 * own page would (`POST /embed/session`, same origin), and tRPC clients holding the credential the
 * way the iframe does (HTTP with the same-origin headers of its page, or a socket from its origin).
 */
import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter } from "../../server-bridge/trpc/router.ts";
import type { TestServer } from "./server.ts";
import { type SocketClient, socketClient } from "./sockets.ts";

export const HOST_ORIGIN = "http://localhost:3000";

export interface RegisteredWidget {
  id: string;
  mintKey: string;
}

export async function addWidget(
  server: TestServer,
  options: Partial<Parameters<TestServer["script"]["widgets"]["add"]["mutate"]>[0]> = {},
): Promise<RegisteredWidget> {
  const { widget, mintKey } = await server.script.widgets.add.mutate({ origins: [HOST_ORIGIN], ...options });
  return { id: widget.id, mintKey };
}

/** `POST /embed/token` as the host's server sends it. */
export async function mint(server: TestServer, mintKey: string, body: unknown = {}) {
  const res = await fetch(`${server.url}/embed/token`, {
    method: "POST",
    headers: { authorization: `Bearer ${mintKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as { token?: string; error?: { code: string; message: string } },
  };
}

/** `POST /embed/session` as the widget's page sends it (same origin). */
export async function exchange(server: TestServer, widget: string, token: string) {
  const res = await fetch(`${server.url}/embed/session`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url, "sec-fetch-site": "same-origin" },
    body: JSON.stringify({ widget, token }),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      credential?: string;
      credential_id?: string;
      error?: { code: string; message: string };
    },
  };
}

/** A fresh credential for `widget` (mint, then exchange). */
export async function credentialFor(server: TestServer, widget: RegisteredWidget): Promise<string> {
  const minted = await mint(server, widget.mintKey);
  if (!minted.body.token) throw new Error(`mint failed: ${JSON.stringify(minted.body)}`);
  const exchanged = await exchange(server, widget.id, minted.body.token);
  if (!exchanged.body.credential) throw new Error(`exchange failed: ${JSON.stringify(exchanged.body)}`);
  return exchanged.body.credential;
}

/**
 * The iframe's HTTP client: the credential as a bearer token; `page` says from which page the request
 * comes: the widget's own (same origin), a host page (cross-site), or a script (no browser headers).
 */
export function widgetHttp(server: TestServer, credential: string, page: "own" | "host" | "script" = "own") {
  const browser: Record<string, Record<string, string>> = {
    own: { origin: server.url, "sec-fetch-site": "same-origin" },
    host: { origin: HOST_ORIGIN, "sec-fetch-site": "cross-site" },
    script: {},
  };
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({ url: `${server.url}/trpc`, headers: { authorization: `Bearer ${credential}`, ...browser[page] } }),
    ],
  });
}

/** The iframe's socket: the credential in connectionParams, opened from our origin (or as a script). */
export function widgetSocket(server: TestServer, credential: string, fromPage = true): SocketClient {
  return socketClient(server, { token: credential, ...(fromPage ? { origin: server.url } : {}) });
}
