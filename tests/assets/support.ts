/** Fixtures for asset, collection and web tests: real PNGs from sharp, and a loopback HTTP server. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";

export const ASSETS = "@nodetool-ai/sandbox-nodetool/assets";
export const COLLECTIONS = "@nodetool-ai/sandbox-nodetool/collections";
export const WEB = "@nodetool-ai/sandbox-nodetool/web";

export const b64 = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString("base64");
export const unb64 = (text: string) => new Uint8Array(Buffer.from(text, "base64"));

/** A real PNG of `width` x `height`, one colour. */
export async function png(width: number, height: number, background = "#3366cc"): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

export interface Loopback {
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `127.0.0.1:<port>`, as the HTTP_ALLOW_HOSTS entry that allows exactly this server. */
  hostPort: string;
  seen: SeenRequest[];
  [Symbol.asyncDispose](): Promise<void>;
}

/** An HTTP server on 127.0.0.1 answering with `handle`; every request it got is in `seen`. */
export async function startLoopback(
  handle: (req: SeenRequest, res: ServerResponse) => void | Promise<void>,
): Promise<Loopback> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const entry = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(entry);
      Promise.resolve(handle(entry, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    seen,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback server that echoes method, path and body, with /json, /bytes and /big variants. */
export const echo = () =>
  startLoopback((req, res) => {
    if (req.url === "/json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ $schema: "s", items: [1, 2] }));
    } else if (req.url === "/bytes") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(Buffer.from([0, 1, 2, 255]));
    } else if (req.url === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(5000));
    } else {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-seen-method": req.method });
      res.end(`${req.method} ${req.url} ${req.body.toString()}`);
    }
  });
