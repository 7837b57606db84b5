/**
 * MCP test fixtures: the SDK's own client over Streamable HTTP (against a real test server) and over
 * stdio (a spawned `node --import tsx server-bridge/main.ts mcp` on a temp $DATA_DIR), both disposable,
 * with explicit request timeouts. Plus a small PNG with four coloured quadrants for view_image.
 */
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import sharp from "sharp";
import { storeEnv } from "../support/database.ts";
import { tempDir } from "../support/server.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const TIMEOUT: RequestOptions = { timeout: 30_000 };
export const WORKFLOWS = "@nodetool-ai/sandbox-nodetool/workflows";
export const ASSETS = "@nodetool-ai/sandbox-nodetool/assets";

export type ElicitHandler = (request: ElicitRequest, signal: AbortSignal) => Promise<ElicitResult>;

export interface TestClient extends AsyncDisposable {
  client: Client;
  /** Every elicitation the server sent this client. */
  elicitations: ElicitRequest["params"][];
  run(code: string, options?: { risk?: "low" | "high"; request?: RequestOptions }): Promise<ToolRun>;
}

export interface ToolRun {
  result: CallToolResult;
  /** The observation, parsed from the text content (and equal to structuredContent). */
  observation: { ok: boolean; result?: unknown; error?: { code: string; message: string }; calls: unknown[] };
}

function makeClient(elicit?: ElicitHandler, capabilities?: ClientCapabilities) {
  const elicitations: ElicitRequest["params"][] = [];
  // With a handler, the client declares elicitation (`{}`: form mode) unless told exactly what to declare.
  const declared = capabilities ?? (elicit ? { elicitation: {} } : undefined);
  const client = new Client({ name: "nodetool-tests", version: "1.0.0" }, declared ? { capabilities: declared } : {});
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      elicitations.push(request.params);
      return elicit(request, extra.signal);
    });
  }
  const run = async (code: string, options: { risk?: "low" | "high"; request?: RequestOptions } = {}) => {
    const result = (await client.callTool(
      { name: "execute_code", arguments: { risk: options.risk ?? "low", description: "test action", code } },
      undefined,
      options.request ?? TIMEOUT,
    )) as CallToolResult;
    const first = result.content[0];
    if (first?.type !== "text") throw new Error("execute_code answered without text");
    return { result, observation: JSON.parse(first.text) };
  };
  return { client, elicitations, run };
}

export async function httpClient(
  url: string,
  token: string | undefined,
  options: { elicit?: ElicitHandler; headers?: Record<string, string>; capabilities?: ClientCapabilities } = {},
): Promise<TestClient & { transport: StreamableHTTPClientTransport }> {
  const { client, elicitations, run } = makeClient(options.elicit, options.capabilities);
  const headers: Record<string, string> = {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...options.headers,
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } });
  await client.connect(transport, TIMEOUT);
  return {
    client,
    transport,
    elicitations,
    run,
    [Symbol.asyncDispose]: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

export async function stdioClient(
  options: { args?: string[]; env?: Record<string, string>; elicit?: ElicitHandler; dataDir?: string } = {},
): Promise<
  TestClient & { dataDir: string; stderr: () => string; errors: Error[]; closing: { ms: number }; alive(): boolean }
> {
  const dataDir = options.dataDir ?? tempDir("nt-mcp-");
  const { client, elicitations, run } = makeClient(options.elicit);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", "server-bridge/main.ts", "mcp", ...(options.args ?? [])],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), ...(await storeEnv(dataDir)), MCP_MODE: "", ...options.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  // Anything on stdout that is not protocol shows up here (the client reports it as a transport error).
  const errors: Error[] = [];
  transport.onerror = (err) => errors.push(err);
  await client.connect(transport, TIMEOUT);
  const pid = transport.pid;
  const closing = { ms: Number.NaN };
  return {
    client,
    elicitations,
    run,
    dataDir,
    errors,
    closing,
    alive: () => {
      try {
        return pid !== null && process.kill(pid, 0);
      } catch {
        return false;
      }
    },
    stderr: () => stderr,
    [Symbol.asyncDispose]: async () => {
      const started = performance.now();
      // The SDK ends stdin, waits up to 2 s for the exit, then sends SIGTERM.
      await client.close();
      closing.ms = performance.now() - started;
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A PNG whose four quadrants are red, green, blue and white (top left, top right, bottom left, bottom right). */
export async function quadrantPng(width = 1200, height = 800): Promise<Buffer> {
  const w = width / 2;
  const h = height / 2;
  const tile = (r: number, g: number, b: number) =>
    sharp({ create: { width: w, height: h, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer();
  const [red, green, blue, white] = await Promise.all([
    tile(255, 0, 0),
    tile(0, 255, 0),
    tile(0, 0, 255),
    tile(255, 255, 255),
  ]);
  return sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .composite([
      { input: red as Buffer, left: 0, top: 0 },
      { input: green as Buffer, left: w, top: 0 },
      { input: blue as Buffer, left: 0, top: h },
      { input: white as Buffer, left: w, top: h },
    ])
    .png()
    .toBuffer();
}

/** The colour at the centre of a base64 image. */
export async function centreColour(base64: string): Promise<{ width: number; height: number; rgb: number[] }> {
  const image = sharp(Buffer.from(base64, "base64"));
  const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * info.channels;
  return { width: info.width, height: info.height, rgb: [data[at] ?? -1, data[at + 1] ?? -1, data[at + 2] ?? -1] };
}
