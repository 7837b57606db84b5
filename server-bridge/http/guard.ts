/**
 * Request guards shared by every route: which Host values are ours (DNS-rebinding protection),
 * whether a request comes from our own origin, and who is calling.
 */
import type { IncomingMessage } from "node:http";
import type { AppServices } from "../app-services.ts";
import type { Caller, Via } from "../auth/caller.ts";
import { COOKIE_NAME, readCookie } from "../auth/logins.ts";
import { CREDENTIAL_PREFIX } from "../auth/widgets.ts";

export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set(["127.0.0.1", "localhost", "[::1]", host]);
  return new Set([...names].map((name) => `${name}:${port}`));
}

export function hostAllowed(req: IncomingMessage, hosts: Set<string>): boolean {
  const host = req.headers.host;
  return host !== undefined && hosts.has(host.toLowerCase());
}

/** True only with positive evidence that the request comes from a page of our own origin. */
export function isSameOrigin(req: IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined) return site === "same-origin";
  const origin = req.headers.origin;
  return origin !== undefined && origin === `http://${req.headers.host}`;
}

/** A cross-site browser request: a foreign Origin or a Sec-Fetch-Site other than same-origin/none. */
export function isForeign(req: IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") return true;
  const origin = req.headers.origin;
  return origin !== undefined && origin !== `http://${req.headers.host}`;
}

export function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}

/**
 * Who may call the API (`/trpc`, `/assets`, `/types`): the person's browser, the admin token, an API
 * token, a widget's iframe (its credential, from its own page only: see `isForeign` at each route).
 */
export const API_CALLERS: readonly Via[] = ["cookie", "bearer", "api", "widget"];
/** Who may call `/mcp`: the MCP token only. */
export const MCP_CALLERS: readonly Via[] = ["mcp"];

/** Whose token this is (admin, API, MCP token or a widget credential), as a caller; undefined for none. */
export async function callerOfToken(
  app: Pick<AppServices, "credentials" | "widgets">,
  token: string,
): Promise<Caller | undefined> {
  if (token.startsWith(CREDENTIAL_PREFIX)) {
    const found = await app.widgets.identify(token);
    return found && { user: found.widget.userId, via: "widget", session: found.credentialId, widget: found.widget };
  }
  const found = await app.credentials.identify(token);
  if (!found) return undefined;
  return { user: found.user, via: found.scope === "admin" ? "bearer" : found.scope };
}

/** A caller whose requests must come from its own page: the cookie's browser, a widget's iframe. */
export function bindsToPage(caller: Caller): boolean {
  return caller.via === "cookie" || caller.via === "widget";
}

/**
 * The caller, if the request carries a credential `accept` admits. A bearer token is judged alone (a
 * wrong one is not rescued by a cookie); without one, the login cookie, when `accept` has `cookie`.
 */
export async function identify(
  app: AppServices,
  req: IncomingMessage,
  accept: readonly Via[],
): Promise<Caller | undefined> {
  const token = bearer(req);
  if (token !== undefined) {
    const caller = await callerOfToken(app, token);
    return caller && accept.includes(caller.via) ? caller : undefined;
  }
  if (!accept.includes("cookie")) return undefined;
  const login = readCookie(req.headers.cookie, COOKIE_NAME);
  const user = login ? await app.logins.userOf(login) : undefined;
  return user && login ? { user, via: "cookie", session: login } : undefined;
}
