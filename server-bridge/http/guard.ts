/**
 * Request guards shared by every route: which Host values are ours (DNS-rebinding protection),
 * whether a request comes from our own origin, and who is calling.
 */
import type { IncomingMessage } from "node:http";
import type { AppServices } from "../app-services.ts";
import { COOKIE_NAME, readCookie } from "../auth/logins.ts";
import type { Scope } from "../auth/tokens.ts";

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

export interface Caller {
  userId: string | undefined;
  via: "cookie" | "bearer" | "none";
}

export function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}

export function identify(app: AppServices, req: IncomingMessage, scope: Scope): Caller {
  const token = bearer(req);
  if (token !== undefined) {
    const userId = app.credentials.verify(token, scope);
    return userId ? { userId, via: "bearer" } : { userId: undefined, via: "none" };
  }
  if (scope !== "admin") return { userId: undefined, via: "none" };
  const login = readCookie(req.headers.cookie, COOKIE_NAME);
  const userId = login ? app.logins.userOf(login) : undefined;
  return userId ? { userId, via: "cookie" } : { userId: undefined, via: "none" };
}
