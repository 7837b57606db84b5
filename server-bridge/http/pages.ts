/**
 * The login redirect and the page shell. `/?token=...` with a valid admin token (never an API or MCP
 * token) sets the login cookie and redirects to `/` without the token (keeping the workflow the link
 * named, `&workflow=<id>`); the built page is served from `webDir` when present.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import type { AppServices } from "../app-services.ts";
import { COOKIE_NAME, readCookie } from "../auth/logins.ts";
import { identify } from "./guard.ts";
import { BASE_HEADERS, refuse, sendError } from "./respond.ts";

/** The page's policy; `frameAncestors` is who may frame it (the app: itself; a widget: its origins). */
export function pageCsp(frameAncestors: string): string {
  return (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
    `connect-src 'self'; worker-src 'self' blob:; frame-ancestors ${frameAncestors}; base-uri 'none'; form-action 'self'; object-src 'none'`
  );
}

export const PAGE_CSP = pageCsp("'self'");

/** The worker script may not reach the network at all: a compromised worker cannot use our cookies. */
export const WORKER_CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'none'";

export const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

/** Why a sign-in link was refused, as the page's signed-out view names it (`/?signin=<reason>`). */
export type SigninRefusal = "invalid" | "api_only";

/** The page's own part of a sign-in link's address that survives the redirect: the workflow it opens. */
function keptQuery(url: URL): string {
  const workflow = url.searchParams.get("workflow");
  return workflow ? `workflow=${encodeURIComponent(workflow)}` : "";
}

export async function handleLogin(
  app: AppServices,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const token = url.searchParams.get("token") ?? "";
  const found = await app.credentials.identify(token);
  if (found?.scope !== "admin") {
    // An API or MCP token is a script's: it never becomes a person who could answer approvals.
    const reason: SigninRefusal = found === undefined ? "invalid" : "api_only";
    if (req.headers["sec-fetch-mode"] === "navigate") {
      // A person opened the link: the page says why, and the token leaves the address bar and history.
      const query = [`signin=${reason}`, keptQuery(url)].filter(Boolean).join("&");
      res.writeHead(303, { ...BASE_HEADERS, Location: `/?${query}`, "Cache-Control": "no-store" });
      res.end();
      return;
    }
    const message =
      reason === "invalid"
        ? "That token is not valid. Use the URL `npm start` printed."
        : "This token opens the API only; it cannot sign a browser in. Use the admin token (the URL `npm start` printed).";
    refuse(res, 401, "unauthorized", message);
    return;
  }
  const login = await app.logins.create(found.user);
  const kept = keptQuery(url);
  res.writeHead(303, {
    ...BASE_HEADERS,
    Location: kept ? `/?${kept}` : "/",
    "Set-Cookie": app.logins.cookie(login, false),
    "Cache-Control": "no-store",
  });
  res.end();
}

/** The path with its percent-escapes decoded, or undefined when one is malformed (`/%zz`, a cut UTF-8 sequence). */
export function decodePath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}

export async function servePage(app: AppServices, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const root = app.config.webDir;
  const decoded = decodePath(url.pathname);
  if (decoded === undefined) {
    sendError(res, 400, "invalid_call", "The address has a malformed percent-escape (such as %zz); fix the URL.");
    return;
  }
  const rel = normalize(decoded).replace(/^([/\\])+/, "");
  const path = join(root, rel);
  if ((path === root || path.startsWith(root + sep)) && rel !== "" && existsSync(path) && statSync(path).isFile()) {
    const type = TYPES[extname(path)] ?? "application/octet-stream";
    const headers: Record<string, string> = { ...BASE_HEADERS, "Content-Type": type, "Cache-Control": "no-cache" };
    if (/worker/i.test(rel) && type.startsWith("text/javascript")) headers["Content-Security-Policy"] = WORKER_CSP;
    res.writeHead(200, headers);
    res.end(readFileSync(path));
    return;
  }
  const index = join(root, "index.html");
  const signedIn = (await identify(app, req, ["cookie"])) !== undefined;
  // A login cookie that no longer signs in (signed out, expired) leaves the browser with this page.
  const stale = !signedIn && readCookie(req.headers.cookie, COOKIE_NAME) !== undefined;
  const html = existsSync(index) ? readFileSync(index, "utf8") : fallbackPage(signedIn);
  res.writeHead(200, {
    ...BASE_HEADERS,
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": PAGE_CSP,
    "Cache-Control": "no-cache",
    ...(stale ? { "Set-Cookie": app.logins.cookie(undefined, false) } : {}),
  });
  res.end(html);
}

function fallbackPage(signedIn: boolean): string {
  const body = signedIn
    ? "<p>You are signed in. The API is at <code>/trpc</code>; see the README for scripts.</p>"
    : "<p>You are not signed in. Open the URL that <code>npm start</code> printed (it ends in <code>/?token=…</code>), or read the token from <code>$DATA_DIR/token</code>.</p>";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>nodetool sandbox</title></head><body><h1>nodetool sandbox</h1>${body}</body></html>`;
}
