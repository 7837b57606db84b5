/**
 * `/trpc`: every limit is enforced here, before any procedure runs: credentials (401), foreign
 * Origin / Sec-Fetch-Site on cookie requests (403), JSON content type (415), body size (413), batch
 * size (413). Then the request is handed to tRPC's fetch adapter and the response (plain, streamed
 * batch, or SSE) is piped back.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { AppServices } from "../app-services.ts";
import { batchTooLarge } from "../config.ts";
import { appRouter } from "../trpc/router.ts";
import { readBody } from "./body.ts";
import { API_CALLERS, bindsToPage, identify, isForeign, isSameOrigin } from "./guard.ts";
import { BASE_HEADERS, refuse } from "./respond.ts";

export async function handleTrpc(app: AppServices, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const caller = await identify(app, req, API_CALLERS);
  if (!caller) {
    refuse(
      res,
      401,
      "unauthorized",
      "Missing or invalid credentials: sign in through the URL `npm start` printed, or send Authorization: Bearer <API token> (`token add --name <name>` makes one).",
      {
        "WWW-Authenticate": 'Bearer realm="nodetool"',
      },
    );
    return;
  }
  if (bindsToPage(caller) && isForeign(req)) {
    refuse(res, 403, "unauthorized", "Cross-origin requests are refused.");
    return;
  }
  const procedures = url.pathname.slice("/trpc/".length).split(",").filter(Boolean);
  if (procedures.length > app.config.maxBatchSize) {
    refuse(res, 413, "invalid_call", batchTooLarge(app.config, procedures.length));
    return;
  }
  let body: Buffer | undefined;
  if (req.method === "POST") {
    const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") {
      refuse(res, 415, "invalid_call", "Send JSON: Content-Type must be application/json.");
      return;
    }
    const read = await readBody(req, app.config.maxBodyBytes);
    if (!read.ok) {
      if (read.reason === "too_large")
        refuse(res, 413, "invalid_call", `The request body is larger than ${app.config.maxBodyBytes} bytes.`);
      else res.destroy();
      return;
    }
    body = read.body;
  } else if (req.method !== "GET") {
    refuse(res, 405, "invalid_call", "Use GET for queries and subscriptions, POST for mutations.");
    return;
  }

  const abort = new AbortController();
  // A client that goes away before the answer is complete aborts the calls still running for it. An
  // answer that was sent in full aborts nothing (and costs no AbortError and listener round).
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(", "));
  }
  const request = new Request(url, {
    method: req.method,
    headers,
    ...(body === undefined ? {} : { body: new Uint8Array(body) }),
    signal: abort.signal,
  });
  const response = await fetchRequestHandler({
    endpoint: "/trpc",
    req: request,
    router: appRouter,
    maxBatchSize: app.config.maxBatchSize,
    createContext: () => ({ app, caller, sameOrigin: bindsToPage(caller) && isSameOrigin(req) }),
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") app.log("error", `trpc ${path ?? "?"} failed`, error.cause ?? error);
    },
  });
  const outHeaders: Record<string, string> = { ...BASE_HEADERS, "Cache-Control": "no-store" };
  response.headers.forEach((value, name) => {
    outHeaders[name] = value;
  });
  res.writeHead(response.status, outHeaders);
  if (!response.body) {
    res.end();
    return;
  }
  // The headers leave with the first lines of the body (the batch's head, and every result ready by
  // then), in one write: a separate segment for them would cost the browser one more network read
  // before the first result. The head is produced at once, so a held call delays nothing here.
  const rest = await pipeCoalesced(response.body, res, abort.signal);
  if (abort.signal.aborted) res.end();
  else res.end(rest);
}

/**
 * Writes a streamed body one event-loop turn at a time: the lines that are ready together (a batch's
 * head and every result that settled in that turn) leave in one write, so usually in one TCP segment,
 * instead of one segment per line that the browser's network stack hands up one by one. A result that
 * settles later (an approval wait) still leaves in the turn it settles. Returns what is left to write
 * with the end of the response.
 */
async function pipeCoalesced(body: ReadableStream<Uint8Array>, res: ServerResponse, signal: AbortSignal) {
  const reader = body.getReader();
  let queued: Uint8Array[] = [];
  let turn: ReturnType<typeof setImmediate> | undefined;
  let drained: Promise<unknown> | undefined;
  const take = () => {
    const out = queued.length === 1 ? queued[0] : Buffer.concat(queued);
    queued = [];
    return out;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) break;
      queued.push(value);
      turn ??= setImmediate(() => {
        turn = undefined;
        if (res.write(take() ?? "")) return;
        drained = new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done);
            res.off("close", done);
            resolve();
          };
          res.on("drain", done);
          res.on("close", done);
        });
      });
      if (drained) {
        await drained;
        drained = undefined;
      }
    }
  } catch {
    // The client went away mid-stream; nothing to answer.
  } finally {
    if (turn) clearImmediate(turn);
  }
  return take() ?? "";
}
