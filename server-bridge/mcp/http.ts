/**
 * Streamable HTTP at `/mcp` on the main server. Our own HTTP layer guards every request before the
 * SDK sees it: the Host was checked by the router, the Origin is checked here (a foreign one gets 403:
 * DNS-rebinding and cross-site protection), and a request without a valid MCP token gets 401 with
 * `WWW-Authenticate` before any session exists. Each MCP session has its own server and transport
 * (so clients reusing JSON-RPC ids never meet) and is bound to the user whose token opened it: another
 * user's token naming it is told the session does not exist. Sessions are capped per user (the least
 * recently used idle one makes room) and closed when idle (mcp/http-sessions.ts); the body is read
 * under the server's size cap.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { AppServices } from "../app-services.ts";
import type { Caller } from "../auth/caller.ts";
import { readBody } from "../http/body.ts";
import { bearer, identify, isForeign, MCP_CALLERS } from "../http/guard.ts";
import { refuse } from "../http/respond.ts";
import { defaultLibrary } from "../packs/index.ts";
import { BoundedEventStore } from "./event-store.ts";
import { HttpSessions } from "./http-sessions.ts";
import { createMcpServer } from "./server.ts";

export interface McpHttpOptions {
  /** Sessions one user may hold open at once (default: `config.mcpSessionsPerUser`). */
  sessionsPerUser?: number;
  /** A session with no request for this long is closed (default: `config.mcpIdleMs`). */
  idleMs?: number;
  progressIntervalMs?: number;
}

export interface McpHttp {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  readonly sessionCount: number;
  sessionCountOf(user: string): number;
  close(): Promise<void>;
}

/** How long a client waits before reconnecting a dropped event stream (the SSE `retry` field). */
const RETRY_MS = 1_000;

/** A JSON-RPC error answer; `early` (sent before the body was read) also closes the connection. */
function rpcError(res: ServerResponse, status: number, code: number, message: string, early = false): void {
  res.writeHead(status, { "Content-Type": "application/json", ...(early ? { Connection: "close" } : {}) });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

export function createMcpHttp(app: AppServices, options: McpHttpOptions = {}): McpHttp {
  const sessions = new HttpSessions({
    perUser: options.sessionsPerUser ?? app.config.mcpSessionsPerUser,
    idleMs: options.idleMs ?? app.config.mcpIdleMs,
  });
  const library = defaultLibrary();
  let closed = false;

  async function open(caller: Caller, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (!sessions.makeRoom(caller.user)) {
      rpcError(
        res,
        503,
        -32000,
        "Every MCP session you hold open is busy; wait for one to finish, or close one (DELETE /mcp), and retry.",
      );
      return;
    }
    // The sessions' actions run on the process's pool (app.sandbox): its workers start with the first.
    void app.sandbox.warm();
    const session = await createMcpServer({
      app,
      caller,
      mode: app.config.mcpMode,
      library,
      ...(options.progressIntervalMs ? { progressIntervalMs: options.progressIntervalMs } : {}),
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Resumption: every SSE event has an id; a POST stream opens with a priming event carrying
      // `retry`; a client reconnects with Last-Event-ID (GET) and gets what it missed.
      eventStore: new BoundedEventStore(),
      retryInterval: RETRY_MS,
      onsessioninitialized: (id): void => {
        sessions.add(id, { caller: { ...caller, session: id }, session, transport });
      },
      onsessionclosed: (id) => sessions.drop(id),
    });
    session.server.server.onclose = () => {
      if (transport.sessionId) sessions.forget(transport.sessionId);
    };
    await session.server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize that failed leaves a server no one can reach: close it now.
    if (!transport.sessionId || !sessions.has(transport.sessionId)) await session.close();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (closed) {
      rpcError(res, 503, -32000, "The server is shutting down.");
      return;
    }
    if (isForeign(req)) {
      refuse(res, 403, "unauthorized", "Requests from another origin may not use /mcp.");
      return;
    }
    const caller = await identify(app, req, MCP_CALLERS);
    if (!caller) {
      const presented = bearer(req) !== undefined;
      refuse(res, 401, "unauthorized", "/mcp needs the MCP token: send Authorization: Bearer <MCP token>.", {
        "WWW-Authenticate": `Bearer realm="nodetool-mcp"${presented ? ', error="invalid_token"' : ""}`,
      });
      return;
    }
    const method = req.method ?? "GET";
    if (method !== "POST" && method !== "GET" && method !== "DELETE") {
      res.writeHead(405, { Allow: "GET, POST, DELETE", Connection: "close" }).end();
      return;
    }
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const entry = sessionId === undefined ? undefined : sessions.get(sessionId, caller.user);
    if (sessionId !== undefined && !entry) {
      // Someone else's session looks exactly like one that never existed.
      rpcError(res, 404, -32001, "Session not found; initialize a new one.", true);
      return;
    }
    let body: unknown;
    if (method === "POST") {
      const read = await readBody(req, app.config.maxBodyBytes);
      if (!read.ok) {
        if (read.reason === "too_large")
          rpcError(res, 413, -32600, `The request body is over ${app.config.maxBodyBytes} bytes.`, true);
        else res.destroy();
        return;
      }
      try {
        body = JSON.parse(read.body.toString("utf8"));
      } catch {
        rpcError(res, 400, -32700, "Parse error: the body is not JSON.");
        return;
      }
    }
    if (!entry) {
      if (method === "POST" && isInitializeRequest(body)) return open(caller, req, res, body);
      rpcError(res, 400, -32000, "Bad Request: no mcp-session-id; send initialize first.");
      return;
    }
    sessions.seen(entry, method, res);
    await entry.transport.handleRequest(req, res, body);
  }

  return {
    handle,
    get sessionCount() {
      return sessions.size;
    },
    sessionCountOf: (user) => sessions.countOf(user),
    close: async () => {
      if (closed) return;
      closed = true;
      await sessions.close();
    },
  };
}
