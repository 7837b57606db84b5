/**
 * Assembles the server: store, credentials, sessions, approvals, runs, the HTTP routes. `startApp`
 * is what `npm start` and the integration tests call; the returned handle is disposable.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { toFailure } from "../shared/protocol/errors.ts";
import { createProviders } from "./agent/providers/index.ts";
import { createAgentServices } from "./agent/services.ts";
import { type AgentHost, agentHost } from "./agent/subtask.ts";
import type { AppServices } from "./app-services.ts";
import { blobsFor } from "./assets/blobs.ts";
import { imageWork } from "./assets/image-work.ts";
import { isAssetPath, serveAsset } from "./assets/serve.ts";
import { AssetStore, assetLimits } from "./assets/store.ts";
import { arrivalDeadlines, UPLOAD_PATH, uploadAsset } from "./assets/upload.ts";
import { Logins } from "./auth/logins.ts";
import { loadCredentials } from "./auth/tokens.ts";
import { Widgets } from "./auth/widgets.ts";
import type { ServerConfig } from "./config.ts";
import { CodeSandbox } from "./engine/code-sandbox.ts";
import { JobEngine } from "./engine/jobs.ts";
import { checkingIntervalMs, limitConnections } from "./http/connections.ts";
import { handleEmbed, isEmbedPath } from "./http/embed.ts";
import { allowedHosts, hostAllowed } from "./http/guard.ts";
import { type HealthCheck, healthCheck } from "./http/health.ts";
import { handleLogin, servePage } from "./http/pages.ts";
import { refuse, sendError } from "./http/respond.ts";
import { attachSockets, type SocketServer } from "./http/sockets.ts";
import { HTTP_STATUS } from "./http/status.ts";
import { handleTrpc } from "./http/trpc.ts";
import { isTypesPath, serveTypes } from "./http/types.ts";
import { createMcpHttp, type McpHttp } from "./mcp/http.ts";
import { defaultLibrary } from "./packs/index.ts";
import { ApprovalBroker } from "./runs/approvals.ts";
import { EventBus } from "./runs/events.ts";
import { announce, keepLeases } from "./runs/leases.ts";
import { recoverExpiredLeases } from "./runs/recovery.ts";
import { Relay } from "./runs/relay.ts";
import { Runs } from "./runs/runs.ts";
import { Sessions } from "./runs/sessions.ts";
import { UiCalls } from "./runs/ui-calls.ts";
import { SandboxPool } from "./sandbox/pool.ts";
import { AuditLog } from "./store/audit.ts";
import { openStore, type Store } from "./store/db.ts";
import { webPolicy } from "./web/vet.ts";

export type Logger = AppServices["log"];

export const consoleLogger: Logger = (level, message, detail) => {
  const line =
    detail instanceof Error
      ? `${message}: ${detail.stack ?? detail.message}`
      : detail === undefined
        ? message
        : `${message}: ${JSON.stringify(detail)}`;
  process.stderr.write(`[${level}] ${line}\n`);
};

/** The services over one store, without HTTP: used by the server, the CLI and MCP. */
export async function createServices(
  config: ServerConfig,
  log: Logger = consoleLogger,
  given?: Store,
): Promise<AppServices> {
  const store = given ?? (await openStore(config.dataDir, config.databaseUrl));
  let agent: AgentHost | undefined;
  const owner = `proc_${randomUUID()}`;
  imageWork.limit = config.imageConcurrency;
  const bus = new EventBus();
  const relay = new Relay(bus, store.signals);
  store.signals.onWarning((message, detail) => log("warn", message, detail));
  announce({ relay }, await recoverExpiredLeases(store, { except: owner }));
  const sessions = new Sessions(store, bus, defaultLibrary().names);
  const approvals = new ApprovalBroker(store, relay, owner, config.leaseMs, config.approvalPollMs);
  const audit = new AuditLog(store, (err) => log("error", "audit write failed", err));
  const assets = new AssetStore(store, blobsFor(config, store.dataDir), assetLimits(config), (message, detail) =>
    log("warn", message, detail),
  );
  const sandbox = new SandboxPool({ workers: config.sandboxWorkers, userMax: config.sandboxUserMax });
  // The engine opens job-scoped runs through `runs`, and every run hands the engine to its
  // implementations: the host is a late-bound view of `runs`, read only once a job starts.
  const jobs = new JobEngine(store, relay, () => runs, {
    owner,
    leaseMs: config.leaseMs,
    code: new CodeSandbox({ sandbox }),
  });
  const runs: Runs = new Runs(
    store,
    sessions,
    approvals,
    relay,
    audit,
    { owner, ...config },
    (capability, err) => log("error", `capability ${capability} threw`, err),
    {
      jobs,
      assets,
      web: webPolicy(config),
      events: bus,
      // Bound below, once the services it works over exist; read when a run starts.
      get agent() {
        return agent;
      },
    },
  );
  // What another server sharing the store changed (ids only; each handler re-reads the row).
  store.signals.on("approval", (id) => approvals.signalled(id));
  store.signals.on("run", (id) => runs.signalled(id));
  store.signals.on("job", (id) => jobs.signalled(id));
  store.signals.onResync(async () => {
    await approvals.resync();
    await runs.resync();
  });
  await store.signals.ready();
  const widgets = new Widgets(store);
  // A revoked widget's actions stop with it (its sockets close in http/sockets.ts).
  widgets.onRevoked((widgetId) => runs.endForWidget(widgetId));
  const services: Omit<AppServices, "agent"> = {
    config,
    owner,
    store,
    credentials: await loadCredentials(store, { AUTH_TOKEN: config.authToken, MCP_TOKEN: config.mcpToken }),
    logins: new Logins(store),
    widgets,
    bus,
    relay,
    sessions,
    approvals,
    runs,
    ui: new UiCalls(runs, audit),
    jobs,
    sandbox,
    audit,
    assets,
    log,
  };
  // The agent reads assets through the services (view_image), so it is bound to them once they exist.
  const app = services as AppServices;
  app.agent = createAgentServices(app, createProviders(config.agent));
  agent = agentHost(app);
  return app;
}

export interface AppHandle {
  app: AppServices;
  server: Server;
  /** The page's data plane: tRPC over WebSockets on `/trpc`. */
  sockets: SocketServer;
  /** Streamable HTTP MCP at /mcp (its session table). */
  mcp: McpHttp;
  url: string;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startApp(config: ServerConfig, log: Logger = consoleLogger): Promise<AppHandle> {
  const app = await createServices(config, log);
  const leases = keepLeases(app);
  let hosts = new Set<string>();
  const mcp = createMcpHttp(app);
  const health = healthCheck(app.store, log);
  const server = createServer({ connectionsCheckingInterval: checkingIntervalMs(config) }, (req, res) => {
    route(app, hosts, req, res, { mcp, health }).catch((err: unknown) => {
      log("error", "request failed", err);
      const { code, message } = toFailure(err);
      if (!res.headersSent) sendError(res, HTTP_STATUS[code], code, message);
      else res.destroy();
    });
  });
  const sockets = attachSockets(app, server, () => hosts);
  // Deadlines on receiving a request (not on answering it: event streams, held calls and upgraded
  // sockets are long answers, bounded by their own timers), longer for an upload by its size, and a
  // cap on sockets per client address.
  limitConnections(server, config, arrivalDeadlines(config.requestTimeoutMs, app.assets.limits.maxBytes));
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(listenError(err, config.host, config.port)));
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  app.config.port = port;
  hosts = allowedHosts(config.host, port);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    leases.dispose();
    await mcp.close();
    await sockets.close();
    await app.runs.endAll();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.jobs.dispose();
    await app.sandbox.dispose();
    await app.audit.flush();
    await app.store.dispose();
  };
  return { app, server, sockets, mcp, url: `http://${config.host}:${port}`, close, [Symbol.asyncDispose]: close };
}

async function route(
  app: AppServices,
  hosts: Set<string>,
  req: IncomingMessage,
  res: ServerResponse,
  { mcp, health }: { mcp: McpHttp; health: HealthCheck },
): Promise<void> {
  if (!hostAllowed(req, hosts)) {
    refuse(res, 403, "unauthorized", "This Host is not served here.");
    return;
  }
  const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
  if (url.pathname === "/health") {
    await health.answer(res);
    return;
  }
  if (url.pathname === "/trpc" || url.pathname.startsWith("/trpc/")) {
    await handleTrpc(app, req, res, url);
    return;
  }
  if (url.pathname === "/mcp") {
    await mcp.handle(req, res);
    return;
  }
  if (isEmbedPath(url.pathname)) {
    await handleEmbed(app, req, res, url);
    return;
  }
  if (url.pathname === UPLOAD_PATH && req.method === "POST") {
    await uploadAsset(app, req, res, url);
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    refuse(res, 405, "invalid_call", "Method not allowed.");
    return;
  }
  if (isAssetPath(url.pathname)) {
    await serveAsset(app, req, res, url);
    return;
  }
  if (isTypesPath(url.pathname)) {
    await serveTypes(app, req, res, url);
    return;
  }
  if (url.pathname === "/" && url.searchParams.has("token")) {
    await handleLogin(app, req, res, url);
    return;
  }
  await servePage(app, req, res, url);
}

/** Why the server could not listen, in words an operator acts on (the usual two: taken, or privileged). */
function listenError(err: Error, host: string, port: number): Error {
  const code = "code" in err ? err.code : undefined;
  const where = `${host}:${port}`;
  if (code === "EADDRINUSE") {
    return new Error(
      `${where} is in use (another nodetool sandbox, or another program): stop it, or choose another port, e.g. PORT=${port + 1} npm start`,
    );
  }
  if (code === "EACCES") {
    return new Error(
      `not allowed to listen on ${where} (a port below 1024 needs privileges): choose another port with PORT`,
    );
  }
  if (code === "EADDRNOTAVAIL") return new Error(`${host} is not an address of this machine: set HOST to one that is`);
  return err;
}
