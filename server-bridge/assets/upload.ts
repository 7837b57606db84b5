/**
 * `POST /assets?run=<run id>&name=<file name>`: the person's page uploads a file (the body, as it is,
 * with the file's type as Content-Type) as their asset, up to the asset cap rather than the message
 * cap (a phone's photo is larger than a call may be). It is the person's own act, exactly as the page's
 * `assets.save` call is: a user-actor call on the page's editor run, through the same call router (so
 * it is checked, re-encoded and audited alike). Only the signed-in person's page, from its own origin,
 * may upload (a cross-site form cannot); scripts save with `assets.save`. A few uploads per user at
 * once, so one person cannot hold the server's memory.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { moduleSpecifier } from "../../shared/capabilities/table.ts";
import { formatBytes } from "../../shared/protocol/durations.ts";
import { toWire } from "../../shared/protocol/values.ts";
import type { AppServices } from "../app-services.ts";
import { readBody } from "../http/body.ts";
import type { ArrivalDeadlines } from "../http/connections.ts";
import { identify, isSameOrigin } from "../http/guard.ts";
import { refuse, sendJson } from "../http/respond.ts";
import { HTTP_STATUS } from "../http/status.ts";
import { typeOfFileName } from "./media-types.ts";

export const UPLOAD_PATH = "/assets";
/** Uploads one user may have arriving at once; more are refused (429) until one ends. */
export const UPLOADS_PER_USER = 4;
/** The slowest link an upload is waited for: it may take the request deadline plus its size at this rate. */
export const UPLOAD_FLOOR_BYTES_PER_SECOND = 32 * 1024;

/**
 * How long a request may take to arrive: an upload its size at the floor rate more than any request (a
 * 25 MiB photo over a poor phone link takes minutes), sized by what it declares or else the cap.
 */
export function arrivalDeadlines(requestTimeoutMs: number, maxBytes: number): ArrivalDeadlines {
  const forBytes = (bytes: number) => requestTimeoutMs + Math.ceil((bytes / UPLOAD_FLOOR_BYTES_PER_SECOND) * 1000);
  return {
    of(req) {
      if (req.method !== "POST" || (req.url ?? "").split("?")[0] !== UPLOAD_PATH) return requestTimeoutMs;
      const declared = Number(req.headers["content-length"]);
      return forBytes(Number.isFinite(declared) && declared >= 0 ? Math.min(declared, maxBytes) : maxBytes);
    },
    longestMs: forBytes(maxBytes),
  };
}

/** Uploads arriving, by server and user. */
const uploading = new Map<string, number>();

/** How many uploads `app` is receiving now, everyone's. */
export function uploadsArriving(app: Pick<AppServices, "owner">): number {
  let total = 0;
  for (const [key, n] of uploading) if (key.startsWith(`${app.owner}:`)) total += n;
  return total;
}

export async function uploadAsset(app: AppServices, req: IncomingMessage, res: ServerResponse, url: URL) {
  const caller = await identify(app, req, ["cookie"]);
  if (!caller) {
    refuse(
      res,
      401,
      "unauthorized",
      "Sign in (open the URL `npm start` printed); scripts save files with assets.save.",
    );
    return;
  }
  if (!isSameOrigin(req)) {
    refuse(res, 403, "unauthorized", "Files are uploaded from the app's own page only.");
    return;
  }
  const runId = url.searchParams.get("run") ?? "";
  const name = (url.searchParams.get("name") ?? "").trim();
  if (runId === "" || runId.length > 200 || name === "" || name.length > 255) {
    refuse(res, 400, "invalid_call", "Name the page's run (run=) and the file (name=, at most 255 characters).");
    return;
  }
  const max = app.assets.limits.maxBytes;
  const tooLarge = `The file is larger than ${formatBytes(max)}, the most one asset may be. Upload something smaller (resize or compress it).`;
  if (Number(req.headers["content-length"] ?? "0") > max) {
    refuse(res, 413, "invalid_call", tooLarge);
    return;
  }
  const key = `${app.owner}:${caller.user}`;
  const busy = uploading.get(key) ?? 0;
  if (busy >= UPLOADS_PER_USER) {
    refuse(res, 429, "invalid_call", `At most ${UPLOADS_PER_USER} uploads at once: wait for one to finish.`, {
      "Retry-After": "1",
    });
    return;
  }
  uploading.set(key, busy + 1);
  try {
    const read = await readBody(req, max);
    if (!read.ok) {
      if (read.reason === "too_large") refuse(res, 413, "invalid_call", tooLarge);
      else res.destroy();
      return;
    }
    // The browser's type for the file; for a file it has none for, the type its name says (notes.md).
    const given = req.headers["content-type"];
    const type = given && given !== "application/octet-stream" ? given : typeOfFileName(name);
    const claimed = type ? { content_type: type } : {};
    const answer = await app.runs.invoke(
      caller.user,
      {
        runId,
        module: moduleSpecifier("assets"),
        export: "save",
        args: toWire([{ name, content: new Uint8Array(read.body), ...claimed }], "args"),
        actor: "user",
      },
      { hold: false },
    );
    // A user-actor call is never held for a person; the answer is the call's, as `run.invoke` gives it.
    const status = "ok" in answer && !answer.ok ? HTTP_STATUS[answer.error.code] : 200;
    sendJson(res, status, answer);
  } finally {
    const left = (uploading.get(key) ?? 1) - 1;
    if (left > 0) uploading.set(key, left);
    else uploading.delete(key);
  }
}
