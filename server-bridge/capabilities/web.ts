/**
 * Implementation of the `web` namespace: `http_request` over web/outbound.ts, which vets every hop
 * against the operator's policy. Here: the body going out, and the response shaped for a model
 * (text, parsed JSON or bytes, by `response_type`).
 */
import type { JsonValue } from "../../shared/capabilities/outputs.ts";
import { httpRequest } from "../../shared/capabilities/specs/web.specs.ts";
import { decodeText, isJsonType, isTextType } from "../assets/media-types.ts";
import { fetchOutbound } from "../web/outbound.ts";
import { STRICT_WEB_POLICY } from "../web/vet.ts";
import { implement } from "./define.ts";

/** The request body as bytes, and the content type it implies when the caller set none. */
function encodeBody(body: unknown): { bytes?: Uint8Array; contentType?: string } {
  if (body === undefined) return {};
  if (typeof body === "string")
    return { bytes: new TextEncoder().encode(body), contentType: "text/plain; charset=utf-8" };
  if (body instanceof Uint8Array) return { bytes: body, contentType: "application/octet-stream" };
  return { bytes: new TextEncoder().encode(JSON.stringify(body)), contentType: "application/json" };
}

export default [
  implement(httpRequest, async (run, args) => {
    const policy = run.services.web ?? STRICT_WEB_POLICY;
    const { bytes, contentType } = encodeBody(args.body);
    const headers = { ...args.headers };
    const hasType = Object.keys(headers).some((name) => name.toLowerCase() === "content-type");
    if (contentType && !hasType) headers["content-type"] = contentType;
    const response = await fetchOutbound(
      {
        url: args.url,
        method: args.method,
        headers,
        body: bytes,
        timeoutMs: args.timeout_ms,
        followRedirects: args.follow_redirects,
        signal: run.context.signal,
      },
      policy,
    );
    const type = response.headers["content-type"] ?? "";
    const out = {
      status: response.status,
      status_text: response.statusText,
      ok: response.status >= 200 && response.status < 300,
      url: response.url,
      redirects: response.redirects,
      headers: response.headers,
      content_type: type,
      size: response.body.byteLength,
      truncated: response.truncated,
    };
    let kind = args.response_type;
    if (kind === "auto") kind = isJsonType(type) ? "json" : isTextType(type) || type === "" ? "text" : "bytes";
    if (kind === "json") {
      const text = decodeText(response.body, type);
      try {
        return { ...out, body_type: "json" as const, json: JSON.parse(text) as JsonValue };
      } catch {
        // Not JSON after all (or cut off): the text is still worth reading.
        return { ...out, body_type: "text" as const, text };
      }
    }
    if (kind === "text") return { ...out, body_type: "text" as const, text: decodeText(response.body, type) };
    return { ...out, body_type: "bytes" as const, bytes: response.body };
  }),
];
