/**
 * The widget's HTTP surface (DESIGN.md sections 8 and 8a), under `/embed`:
 *
 * - `GET /embed?w=<widget id>`: the widget page (the agent panel in an iframe), framed only by the
 *   widget's origins (`Content-Security-Policy: frame-ancestors <origins>`), with the widget's public
 *   policy written into the page (its id, origins, modules, highest mode: nothing secret);
 * - `GET /embed/sdk.js` and `/embed/sdk.d.ts`: the host SDK and its declarations, public, loadable
 *   from any origin (CORS `*`, no credentials);
 * - `POST /embed/token`: server to server, the mint key as a bearer token, mints a visitor's token.
 *   A browser request is refused: a mint key never belongs in a page;
 * - `POST /embed/session`: the widget page's own request (same origin) trading a token, once, for the
 *   credential that then lives only in the iframe's memory. No cookie is read or set anywhere here.
 */
import { existsSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { z } from "zod";
import { isCodedError, issueLines } from "../../shared/protocol/errors.ts";
import type { AppServices } from "../app-services.ts";
import type { WidgetPolicy } from "../auth/widget-policy.ts";
import { TOKEN_TTL_MS } from "../auth/widgets.ts";
import { readBody } from "./body.ts";
import { bearer, isSameOrigin } from "./guard.ts";
import { pageCsp, TYPES } from "./pages.ts";
import { BASE_HEADERS, refuse, sendError, sendJson } from "./respond.ts";

const WIDGET_ID = /^wgt_[A-Za-z0-9_-]{1,40}$/;
const MAX_BODY = 4096;
/** Where the built page puts the widget's policy (web/embed.html); replaced whole when served. */
const CONFIG_TAG = /<script type="application\/json" id="nt-widget">[^<]*<\/script>/;

const MintInput = z.strictObject({ ttl_seconds: z.number().int().positive().optional() }).default({});
const ExchangeInput = z.strictObject({ widget: z.string().regex(WIDGET_ID), token: z.string().min(1).max(200) });

export function isEmbedPath(pathname: string): boolean {
  return pathname === "/embed" || pathname.startsWith("/embed/");
}

export async function handleEmbed(app: AppServices, req: IncomingMessage, res: ServerResponse, url: URL) {
  const route = `${req.method} ${url.pathname}`;
  switch (route) {
    case "GET /embed":
    case "HEAD /embed":
      return serveWidgetPage(app, res, url);
    case "GET /embed/sdk.js":
    case "GET /embed/sdk.d.ts":
      return serveSdk(app, res, url.pathname);
    case "POST /embed/token":
      return mint(app, req, res);
    case "POST /embed/session":
      return exchange(app, req, res);
    default:
      sendError(
        res,
        url.pathname.startsWith("/embed/") || req.method === "GET" ? 404 : 405,
        "invalid_call",
        "The widget serves GET /embed?w=<widget id>, GET /embed/sdk.js, POST /embed/token and POST /embed/session.",
      );
  }
}

/** The public part of a widget's policy, as its page reads it. */
export function publicPolicy(widget: WidgetPolicy) {
  return { id: widget.id, origins: widget.origins, modules: widget.modules, maxMode: widget.maxMode };
}

async function serveWidgetPage(app: AppServices, res: ServerResponse, url: URL): Promise<void> {
  const id = url.searchParams.get("w") ?? "";
  const widget = WIDGET_ID.test(id) ? await app.widgets.live(id) : undefined;
  if (!widget) {
    // Nobody may frame a page for a widget that does not exist (or was revoked).
    res.writeHead(404, {
      ...BASE_HEADERS,
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": pageCsp("'none'"),
    });
    res.end(
      '<!doctype html><html lang="en"><meta charset="utf-8"><title>Widget not found</title><p role="alert">There is no widget with this id, or it was revoked.</p></html>',
    );
    return;
  }
  const file = join(app.config.webDir, "embed.html");
  const config = JSON.stringify(publicPolicy(widget)).replace(/</g, "\\u003c");
  const tag = `<script type="application/json" id="nt-widget">${config}</script>`;
  const html = existsSync(file)
    ? readFileSync(file, "utf8").replace(CONFIG_TAG, () => tag)
    : `<!doctype html><html lang="en"><meta charset="utf-8"><title>Widget</title>${tag}<p role="alert">The widget page is not built here; run npm run build.</p></html>`;
  res.writeHead(200, {
    ...BASE_HEADERS,
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": pageCsp(widget.origins.join(" ")),
    // Framed by another site (which may itself require CORP of what it embeds).
    "Cross-Origin-Resource-Policy": "cross-origin",
    "Cache-Control": "no-store",
  });
  res.end(html);
}

function serveSdk(app: AppServices, res: ServerResponse, pathname: string): void {
  const file = join(app.config.webDir, pathname.slice(1));
  if (!existsSync(file)) {
    sendError(res, 404, "invalid_call", "The host SDK is not built here; run npm run build.");
    return;
  }
  res.writeHead(200, {
    ...BASE_HEADERS,
    "Content-Type": pathname.endsWith(".d.ts") ? "application/typescript; charset=utf-8" : (TYPES[".js"] as string),
    "Access-Control-Allow-Origin": "*",
    "Cross-Origin-Resource-Policy": "cross-origin",
    "Cache-Control": "no-cache",
  });
  res.end(readFileSync(file));
}

async function readJson(
  req: IncomingMessage,
  res: ServerResponse,
): Promise<{ ok: true; value: unknown } | { ok: false }> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  const read = await readBody(req, MAX_BODY);
  if (!read.ok) {
    if (read.reason === "too_large") refuse(res, 413, "invalid_call", `The body is larger than ${MAX_BODY} bytes.`);
    else res.destroy();
    return { ok: false };
  }
  if (read.body.length === 0) return { ok: true, value: undefined };
  if (type !== "application/json") {
    refuse(res, 415, "invalid_call", "Send JSON: Content-Type must be application/json.");
    return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(read.body.toString("utf8")) };
  } catch {
    refuse(res, 400, "invalid_call", "The body is not JSON.");
    return { ok: false };
  }
}

async function mint(app: AppServices, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.headers.origin !== undefined || req.headers["sec-fetch-site"] !== undefined) {
    refuse(
      res,
      403,
      "unauthorized",
      "Mint widget tokens on your own server (server to server): a mint key never belongs in a web page.",
    );
    return;
  }
  const key = bearer(req);
  if (key === undefined) {
    refuse(res, 401, "unauthorized", "Send the widget's mint key: Authorization: Bearer <mint key>.", {
      "WWW-Authenticate": 'Bearer realm="nodetool-widget"',
    });
    return;
  }
  const body = await readJson(req, res);
  if (!body.ok) return;
  const input = MintInput.safeParse(body.value);
  if (!input.success) {
    sendError(
      res,
      400,
      "invalid_call",
      `Invalid body: ${issueLines(input.error, "(body)").join("; ")}. Send {} or {"ttl_seconds": 300}.`,
    );
    return;
  }
  try {
    const ttlMs = input.data.ttl_seconds === undefined ? TOKEN_TTL_MS.default : input.data.ttl_seconds * 1000;
    sendJson(res, 200, await app.widgets.mint(key, ttlMs));
  } catch (err) {
    if (!isCodedError(err)) throw err;
    refuse(res, 401, err.payload.code, err.payload.message, { "WWW-Authenticate": 'Bearer realm="nodetool-widget"' });
  }
}

async function exchange(app: AppServices, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!isSameOrigin(req)) {
    refuse(res, 403, "unauthorized", "Only the widget's own page exchanges its token (a same-origin request).");
    return;
  }
  const body = await readJson(req, res);
  if (!body.ok) return;
  const input = ExchangeInput.safeParse(body.value);
  if (!input.success) {
    sendError(res, 400, "invalid_call", `Invalid body: ${issueLines(input.error, "(body)").join("; ")}.`);
    return;
  }
  try {
    const exchanged = await app.widgets.exchange(input.data.widget, input.data.token);
    sendJson(res, 200, { ...exchanged, widget: publicPolicy(exchanged.widget) });
  } catch (err) {
    if (!isCodedError(err)) throw err;
    sendError(res, 403, err.payload.code, err.payload.message);
  }
}
