/**
 * One outbound HTTP exchange under the policy of vet.ts. Redirects are followed here, by hand and a
 * bounded number of times, so every hop is vetted before it is connected; each connection is made to
 * the address that hop's check approved (a pinned `lookup`), on a fresh socket (no agent pool that
 * could reuse a socket opened for another address). Bodies are read up to a cap and cut off past it.
 * Never throws anything but a CodedError with a message a model can act on.
 */
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { CodedError } from "../../shared/protocol/errors.ts";
import { failed } from "../capabilities/errors.ts";
import { type ResolvedAddress, type Resolver, type Target, vetTarget, type WebPolicy } from "./vet.ts";

export interface OutboundRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array | undefined;
  timeoutMs: number;
  followRedirects: boolean;
  /** The run's signal: the request stops when the run ends. */
  signal: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  statusText: string;
  /** The URL that answered, after redirects. */
  url: string;
  redirects: string[];
  headers: Record<string, string>;
  body: Uint8Array;
  truncated: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Credentials meant for one origin are not carried to another by a redirect. */
const ORIGIN_BOUND = ["authorization", "cookie", "proxy-authorization"];

export async function fetchOutbound(
  request: OutboundRequest,
  policy: WebPolicy,
  resolve?: Resolver,
): Promise<OutboundResponse> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw failed(`http_request: "${request.url.slice(0, 200)}" is not a valid absolute URL.`);
  }
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), request.timeoutMs);
  const signal = AbortSignal.any([request.signal, deadline.signal]);
  let method = request.method;
  let body = request.body;
  const headers = lowerKeys(request.headers);
  const redirects: string[] = [];
  try {
    for (let hop = 0; ; hop++) {
      const target = await untilAborted(vetTarget(url, policy, hop === 0 ? "" : "the redirect to ", resolve), signal);
      const response = await send(target, method, headers, body, signal);
      const location = response.headers.location;
      const status = response.statusCode ?? 0;
      if (!request.followRedirects || !REDIRECTS.has(status) || !location) {
        const read = await readCapped(response, policy.maxResponseBytes, signal);
        return {
          status,
          statusText: response.statusMessage ?? "",
          url: url.href,
          redirects,
          headers: flatHeaders(response),
          ...read,
        };
      }
      response.resume();
      if (hop >= policy.maxRedirects) {
        throw failed(
          `http_request stopped after ${policy.maxRedirects} redirects (last to ${url.origin}). Request the final URL directly or pass follow_redirects: false.`,
        );
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw failed(`http_request got a redirect from ${url.origin} to an invalid URL.`);
      }
      if (next.origin !== url.origin) for (const name of ORIGIN_BOUND) delete headers[name];
      // As browsers do: 303, and 301/302 after a POST, continue as a GET without the body.
      if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
        if (method !== "HEAD") method = "GET";
        body = undefined;
        delete headers["content-type"];
      }
      redirects.push(next.href);
      url = next;
    }
  } catch (err) {
    if (deadline.signal.aborted) {
      throw new CodedError({
        code: "timeout",
        message: `http_request to ${url.origin} got no complete answer within ${request.timeoutMs} ms. Retry with a larger timeout_ms, or a smaller resource.`,
      });
    }
    if (request.signal.aborted) {
      throw new CodedError({ code: "run_ended", message: "The run ended while http_request was waiting." });
    }
    if (err instanceof CodedError) throw err;
    const code = (err as { code?: unknown }).code;
    const why = typeof code === "string" ? code : "the connection failed";
    throw failed(`http_request to ${url.origin} failed: ${why}. Check that the server is up and the URL is right.`);
  } finally {
    clearTimeout(timer);
  }
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/**
 * Answers the socket's lookup with the vetted addresses only, whatever the name: every address tried
 * (Node tries each in turn when asked for all) is one the check passed.
 */
function pinnedLookup(target: Target): LookupFunction {
  const first = target.addresses[0] as ResolvedAddress;
  return (_hostname, options, callback) => {
    if (options.all)
      callback(
        null,
        target.addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, first.address, first.family);
  };
}

function send(
  target: Target,
  method: string,
  headers: Record<string, string>,
  body: Uint8Array | undefined,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const client = target.url.protocol === "https:" ? https : http;
  const all: Record<string, string> = { ...headers, host: target.url.host };
  if (body !== undefined) all["content-length"] = String(body.byteLength);
  return new Promise((resolve, reject) => {
    const outgoing = client.request({
      host: target.hostname,
      port: target.port,
      method,
      path: `${target.url.pathname}${target.url.search}`,
      headers: all,
      lookup: pinnedLookup(target),
      agent: false,
      signal,
    });
    outgoing.once("response", resolve);
    outgoing.once("error", reject);
    outgoing.end(body);
  });
}

function readCapped(
  response: IncomingMessage,
  max: number,
  signal: AbortSignal,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (truncated: boolean) => {
      if (done) return;
      done = true;
      signal.removeEventListener("abort", onAbort);
      const all = Buffer.concat(chunks);
      resolve({ body: new Uint8Array(all.buffer, all.byteOffset, Math.min(all.byteLength, max)), truncated });
    };
    const fail = (err: unknown) => {
      if (done) return;
      done = true;
      signal.removeEventListener("abort", onAbort);
      reject(err);
    };
    const onAbort = () => {
      response.destroy();
      fail(new Error("aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    response.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size > max) {
        finish(true);
        response.destroy();
      }
    });
    response.once("end", () => finish(false));
    response.once("error", fail);
    response.once("close", () => fail(new Error("the connection closed before the body ended")));
  });
}

function flatHeaders(response: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** A promise that rejects as soon as `signal` aborts (DNS lookups take no signal of their own). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error("aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
