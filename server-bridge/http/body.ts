/** Reads a request body up to a cap; past the cap it stops reading and reports `too_large`. */
import type { IncomingMessage } from "node:http";

export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: "too_large" | "aborted" };

export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > maxBytes) return Promise.resolve({ ok: false, reason: "too_large" });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        settle({ ok: false, reason: "too_large" });
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => settle({ ok: true, body: Buffer.concat(chunks) }));
    req.on("error", () => settle({ ok: false, reason: "aborted" }));
    req.on("close", () => settle({ ok: false, reason: "aborted" }));
  });
}
