/** Specs of the `web` namespace (outbound HTTP from the server): data only. */
import { z } from "zod";
import { BytesArg } from "../../protocol/values.ts";
import { BytesOut, JsonOut } from "../outputs.ts";
import { defineSpec, type ModuleSpecs } from "../types.ts";

/** Headers the HTTP client sets itself; a caller setting them could smuggle a second request or host. */
export const MANAGED_HEADERS: readonly string[] = [
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "expect",
  "proxy-authorization",
  "proxy-connection",
];

const HeaderName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "is not a valid header name")
  .refine((name) => !MANAGED_HEADERS.includes(name.toLowerCase()), "is set by the HTTP client itself");

/** `https://api.example` (default ports dropped), or undefined for a URL that does not parse. */
function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

export const httpRequest = defineSpec({
  name: "http_request",
  method: "request",
  description:
    "Send an HTTP(S) request from the server and read the response: status, headers, final url, and the body as text, parsed JSON or bytes (response_type; auto picks by content type). Redirects are followed (up to a limit) unless follow_redirects is false. Bodies past the server's size cap are cut off and marked truncated. Loopback, private, link-local and cloud-metadata addresses are refused unless the operator allows that host.",
  category: "external",
  positional: ["url"],
  // "Allow for session" covers this destination only: approving one origin never allows another.
  scope: (args) => originOf(args.url),
  input: z.object({
    url: z.string().min(1).max(8000).describe("An http:// or https:// URL"),
    method: z.enum(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]).default("GET"),
    headers: z
      .record(
        HeaderName,
        z
          .string()
          .max(8000)
          .regex(/^[^\r\n]*$/, "may not contain line breaks"),
      )
      .default({}),
    body: z
      .union([BytesArg, z.string(), z.json()])
      .optional()
      .describe("Text, bytes, or a JSON value (sent as application/json)"),
    timeout_ms: z.number().int().min(100).max(120_000).default(30_000),
    follow_redirects: z.boolean().default(true),
    response_type: z.enum(["auto", "text", "json", "bytes"]).default("auto"),
  }),
  userMessage: (args) => `${args.method} ${args.url.slice(0, 200)}`,
  output: z.strictObject({
    status: z.number().int(),
    status_text: z.string(),
    ok: z.boolean().describe("status is 2xx"),
    url: z.string().describe("The URL that answered, after redirects"),
    redirects: z.array(z.string()),
    headers: z.record(z.string(), z.string()).describe("Response headers, names in lower case"),
    content_type: z.string(),
    size: z.number().int().describe("Bytes of body read"),
    truncated: z.boolean().describe("The body was cut off at the server's size cap"),
    body_type: z.enum(["json", "text", "bytes"]).describe("Which of json, text or bytes holds the body"),
    json: JsonOut.optional(),
    text: z.string().optional(),
    bytes: BytesOut.optional(),
  }),
});

export const webModule: ModuleSpecs = {
  name: "web",
  description: "The web: HTTP requests from the server to public addresses.",
  specs: [httpRequest],
};
