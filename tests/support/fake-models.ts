/**
 * Scripted model servers for tests: real HTTP servers on loopback speaking the real wire formats of
 * OpenAI Chat Completions and Anthropic Messages (SSE streams, tool-call deltas, usage, error
 * statuses), answering turns a test scripts. No test ever calls a real provider; these are the one
 * allowed fake (DESIGN: a paid model API cannot exist here), and they are real protocol servers.
 *
 * A streamed turn sends its head at once (the status, the headers and the opening event: OpenAI's
 * role chunk, Anthropic's `message_start`), then waits `delayMs`, then streams the text in a few
 * chunks and each tool call's arguments split across several chunks. A turn whose scripted
 * `output_tokens` reach the request's max tokens finishes as "length" / "max_tokens". An `error` turn
 * waits `delayMs`, then answers its status with a provider-shaped error body.
 * Requests a real provider would refuse (no model, no messages, not streaming, a tool result
 * without its call) are answered 400 the way the provider does, so adapter bugs show up here.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicWire } from "./fake-anthropic-wire.ts";
import { openAIWire } from "./fake-openai-wire.ts";
import { type FakeWire, isRecord, type TurnPlan } from "./fake-wire.ts";

export interface ScriptedTurn {
  text?: string; // streamed in a few chunks
  /** Stream the text in this many chunks instead (a long answer of many small deltas). */
  textChunks?: number;
  tool_calls?: { id?: string; name: string; arguments: string }[]; // arguments text as the model writes it (may be invalid JSON)
  usage?: { input_tokens: number; output_tokens: number };
  /** Answer this status instead of a stream (e.g. 429 with {"retry-after": "1"}, 500, 401). */
  error?: { status: number; headers?: Record<string, string>; body?: unknown };
  /** Cut the connection after streaming this many characters of text (a stream cut mid-message). */
  cutAfterChars?: number;
  /** Wait this long before answering (lets a test press Stop mid-turn). */
  delayMs?: number;
}

export interface FakeModelServer {
  /** Base URL as the SDK wants it: `http://127.0.0.1:<port>/v1` for OpenAI, `http://127.0.0.1:<port>` for Anthropic. */
  url: string;
  /** Every request body received on the completion endpoint, parsed, in order (tests check what the model was sent). */
  requests: unknown[];
  /** Headers of those requests (tests check the key was sent to the provider). */
  headers: Record<string, string | string[] | undefined>[];
  /** Turns still to play; push more any time. When empty, answers a plain text turn "done." */
  script: (ScriptedTurn | ((body: unknown) => ScriptedTurn))[];
  models: string[];
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface FakeServerOptions {
  models?: string[];
  script?: FakeModelServer["script"];
  /** Listen on this port (the manual-trial CLI); a free one when absent. */
  port?: number;
}

export function startFakeOpenAI(options: FakeServerOptions = {}): Promise<FakeModelServer> {
  return startFake(openAIWire, { models: ["gpt-fake-1", "gpt-fake-mini"], ...options });
}

export function startFakeAnthropic(options: FakeServerOptions = {}): Promise<FakeModelServer> {
  return startFake(anthropicWire, { models: ["claude-fake-1", "claude-fake-haiku"], ...options });
}

const DEFAULT_MESSAGES: Record<number, string> = {
  400: "Invalid request.",
  401: "Incorrect API key provided.",
  403: "You are not allowed to use this model.",
  404: "Not found.",
  429: "Rate limit reached for requests. Please try again later.",
  500: "The server had an error while processing your request.",
  503: "The service is temporarily unavailable.",
};

async function startFake(wire: FakeWire, options: FakeServerOptions): Promise<FakeModelServer> {
  const server = createServer();
  let seq = 0;
  const fake: FakeModelServer = {
    url: "",
    requests: [],
    headers: [],
    script: [...(options.script ?? [])],
    models: [...(options.models ?? [])],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    [Symbol.asyncDispose]: () => fake.close(),
  };

  const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    const type = typeof body === "string" ? "text/plain" : "application/json";
    res.writeHead(status, { "content-type": type, ...headers });
    res.end(text);
  };

  const answerTurn = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return sendJson(res, 400, wire.errorBody(400, "The request body is not valid JSON."));
    }
    fake.requests.push(body);
    fake.headers.push({ ...req.headers });
    const request = isRecord(body) ? body : {};
    const refusal = isRecord(body) ? wire.refuse(request) : "The request body must be a JSON object.";
    if (refusal) return sendJson(res, 400, wire.errorBody(400, refusal));

    const next = fake.script.shift() ?? { text: "done." };
    const turn = typeof next === "function" ? next(body) : next;
    const closed = new AbortController();
    res.on("close", () => closed.abort());

    if (turn.error) {
      await sleep(turn.delayMs ?? 0, closed.signal);
      const { status, headers, body: errorBody } = turn.error;
      const message = DEFAULT_MESSAGES[status] ?? `The server answered ${status}.`;
      return sendJson(res, status, errorBody ?? wire.errorBody(status, message), headers);
    }

    const plan = planTurn(turn, request, wire, () => wire.toolCallId(++seq));
    const { head, body: frames } = wire.frames(plan);
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    res.flushHeaders();
    for (const frame of head) res.write(frame);
    await sleep(turn.delayMs ?? 0, closed.signal);
    for (const frame of frames) {
      if (closed.signal.aborted) return;
      await new Promise<void>((resolve) => res.write(frame, () => resolve()));
    }
    // A cut stream: the socket closes without the chunked body's end, as a dropped connection does.
    if (plan.cut) res.socket?.destroy();
    else res.end();
  };

  server.on("request", (req, res) => {
    const path = (req.url ?? "").split("?")[0];
    const handle = async () => {
      if (req.method === "POST" && path === wire.completionPath) return answerTurn(req, res);
      if (req.method === "GET" && path === "/v1/models") return sendJson(res, 200, wire.modelList(fake.models));
      return sendJson(res, 404, wire.errorBody(404, `No route ${req.method} ${path}.`));
    };
    handle().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, wire.errorBody(500, String(err)));
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}${wire.basePath}`;
  return fake;
}

function planTurn(turn: ScriptedTurn, body: Record<string, unknown>, wire: FakeWire, nextId: () => string): TurnPlan {
  const text = turn.text ?? "";
  const cut = turn.cutAfterChars !== undefined;
  const textChunks = split(cut ? text.slice(0, turn.cutAfterChars) : text, turn.textChunks ?? 4);
  const toolCalls = cut
    ? []
    : (turn.tool_calls ?? []).map((call) => ({
        id: call.id ?? nextId(),
        name: call.name,
        argumentChunks: split(call.arguments, 3),
      }));
  const written = text.length + (turn.tool_calls ?? []).reduce((n, call) => n + call.arguments.length, 0);
  const usage = turn.usage ?? {
    input_tokens: Math.max(1, Math.ceil(JSON.stringify(body.messages ?? []).length / 4)),
    output_tokens: Math.max(1, Math.ceil(written / 4)),
  };
  const max = wire.maxTokens(body);
  const stop = max !== undefined && usage.output_tokens >= max ? "length" : toolCalls.length ? "tool_calls" : "end";
  return {
    model: String(body.model ?? ""),
    textChunks,
    toolCalls,
    usage,
    stop,
    includeUsage: wire.includeUsage(body),
    cut,
  };
}

/** `text` in at most `parts` pieces of similar length (none when it is empty). */
function split(text: string, parts: number): string[] {
  if (text === "") return [];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
