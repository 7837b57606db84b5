/**
 * `GET /assets/<id>`: an asset, to its owner only (login cookie, admin or API token). Another user's id
 * and an unknown id answer the same 404, so ids never reveal what exists; the owner's asset whose bytes
 * are not in this server's asset storage answers 404 saying so, and a storage that fails 503. Only re-encoded raster
 * images are served inline; everything else (SVG and HTML included) is an attachment, and every
 * answer carries `nosniff` and a sandboxing CSP, so nothing an action saved can run script in the
 * app's origin.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { isCodedError } from "../../shared/protocol/errors.ts";
import { ASSET_ID } from "../../shared/protocol/values.ts";
import type { AppServices } from "../app-services.ts";
import { API_CALLERS, identify } from "../http/guard.ts";
import { BASE_HEADERS, refuse, sendError } from "../http/respond.ts";
import { isRasterType } from "./media-types.ts";

// Asset ids only (`ast_` + 32 hex): the built page's own files live under /assets/ too.
const ASSET_PATH = new RegExp(`^/assets/(${ASSET_ID.source.slice(1, -1)})$`);

export const ASSET_CSP = "sandbox; default-src 'none'";

export function isAssetPath(pathname: string): boolean {
  return ASSET_PATH.test(pathname);
}

/** `attachment; filename="plain ascii"; filename*=UTF-8''exact%20name` */
export function contentDisposition(kind: "inline" | "attachment", name: string): string {
  const ascii = name.replace(/[^A-Za-z0-9._ -]/g, "_").slice(0, 150) || "asset";
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

export async function serveAsset(app: AppServices, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const id = url.pathname.match(ASSET_PATH)?.[1] as string;
  const caller = await identify(app, req, API_CALLERS);
  if (!caller) {
    refuse(
      res,
      401,
      "unauthorized",
      "Sign in (open the URL `npm start` printed) or send an API token as a bearer token.",
    );
    return;
  }
  const { assets } = app;
  const row = await assets.find(caller.user, id);
  if (!row) {
    sendError(res, 404, "capability_failed", "There is no asset at this address.");
    return;
  }
  const inline = row.kind === "image" && isRasterType(row.content_type);
  const etag = `"${row.sha256}"`;
  const headers: Record<string, string> = {
    ...BASE_HEADERS,
    "Content-Type": row.content_type,
    "Content-Disposition": contentDisposition(inline ? "inline" : "attachment", row.name),
    "Content-Security-Policy": ASSET_CSP,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-cache",
    ETag: etag,
  };
  // The bytes are looked for before the head is written, so bytes that are not there, or a storage
  // that fails, still get their coded answer. A HEAD and a revalidation only ask whether they are there.
  const fresh = req.headers["if-none-match"] === etag;
  let body: Readable | undefined;
  let there: boolean;
  try {
    if (req.method === "HEAD" || fresh) there = await assets.has(row);
    else {
      body = await assets.open(row);
      there = body !== undefined;
    }
  } catch (err) {
    app.log("error", `asset ${row.id}: the asset storage failed`, isCodedError(err) ? err.cause : err);
    sendError(res, 503, "capability_failed", isCodedError(err) ? err.message : "The asset storage failed.");
    return;
  }
  if (!there) {
    // Only the owner gets here (`find` is by user), so saying the row exists reveals nothing to others.
    app.log("warn", `asset ${row.id} has a row but its bytes are not in ${assets.blobs.where}`);
    sendError(res, 404, "capability_failed", assets.blobs.missing(row.id));
    return;
  }
  if (fresh) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, "Content-Length": String(row.size) });
  if (!body) {
    res.end();
    return;
  }
  // A storage that fails mid-way, or a client that goes, ends both sides.
  pipeline(body, res).catch(() => res.destroy());
}
