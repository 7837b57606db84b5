/** Server configuration from the environment, with the defaults DESIGN.md section 10 promises. */
import { resolve } from "node:path";
import { MODES, type Mode } from "../shared/capabilities/types.ts";
import { DEFAULT_IMAGE_CONCURRENCY } from "./assets/image-work.ts";
import type { S3BlobConfig } from "./assets/s3-blobs.ts";
import { defaultWorkers } from "./sandbox/pool.ts";

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  /** `postgres://...`: the store lives in Postgres (files still under `dataDir`); unset, SQLite in `dataDir`. */
  databaseUrl?: string | undefined;
  authToken?: string | undefined;
  mcpToken?: string | undefined;
  approvalTimeoutMs: number;
  /**
   * How often a waiting approval re-reads its row (`APPROVAL_POLL_MS`); unset, 500 ms on SQLite and a
   * 5 s safety poll on Postgres, where `LISTEN`/`NOTIFY` wakes it.
   */
  approvalPollMs?: number | undefined;
  holdMs: number;
  runMaxMs: number;
  leaseMs: number;
  maxBodyBytes: number;
  /** A client must send its request headers within this long (Node's `headersTimeout`). */
  headersTimeoutMs: number;
  /** ...and its whole request, body included, within this long (`requestTimeout`; responses are not counted). */
  requestTimeoutMs: number;
  /** Sockets one client address may hold open at once; more are closed on arrival. */
  maxConnectionsPerClient: number;
  maxBatchSize: number;
  maxCallsPerRun: number;
  /** Wall-time deadline of one action (approval waits not counted); the page and server sandboxes use it. */
  actionTimeoutMs: number;
  /** Where the built page lives (served at `/`). */
  webDir: string;
  /** Largest single asset, in bytes (after images are re-encoded). */
  assetMaxBytes: number;
  /** Total asset bytes one user may keep. */
  assetQuotaBytes: number;
  /** Asset bytes in an S3-compatible bucket (`ASSET_S3_BUCKET`, ...) instead of files under `dataDir`. */
  assetS3?: S3BlobConfig | undefined;
  /** Image decodes and encodes that run at once in this process (the rest wait their turn). */
  imageConcurrency: number;
  /** Let `http_request` reach loopback, private, link-local and metadata addresses (all hosts). */
  httpAllowPrivate: boolean;
  /** `host` or `host:port` entries `http_request` may reach whatever they resolve to (e.g. a local test server). */
  httpAllowHosts: string[];
  /** Response bodies of `http_request` are cut off (and marked truncated) past this many bytes. */
  httpMaxResponseBytes: number;
  /** Redirects `http_request` follows before it stops. */
  httpMaxRedirects: number;
  /** The gate's mode for MCP sessions (`MCP_MODE`; `npm run mcp -- --mode` overrides it for stdio). */
  mcpMode: Mode;
  /** Serve tRPC over WebSockets on `/trpc` (`WEBSOCKETS=false` refuses upgrades: pages fall back to HTTP). */
  webSockets: boolean;
  /** A socket quiet this long is pinged, and closed if nothing comes back within 10 s. */
  wsPingMs: number;
  /**
   * Let a token (admin or API) create a session in `auto` mode (`ALLOW_TOKEN_AUTO_MODE`). Off: only
   * the signed-in person chooses `auto`, exactly as only they may `setMode`.
   */
  allowTokenAutoMode: boolean;
  /** Streamable HTTP sessions one user may hold open at /mcp; at the cap their least recently used idle one closes. */
  mcpSessionsPerUser: number;
  /** An MCP session with no request for this long is closed (clients that never send DELETE). */
  mcpIdleMs: number;
  /** Node sandbox workers in this process (MCP, the CLI, code nodes share them); default the cores, at least 2. */
  sandboxWorkers: number;
  /** Actions one user may have in flight in the Node sandbox; below `sandboxWorkers` (default one less). */
  sandboxUserMax: number;
  /** The agent's model providers and budgets (server only: keys never reach a page). */
  agent: AgentConfig;
}

export interface AgentConfig {
  /** An OpenAI-compatible Chat Completions server (`.../v1`); with only a key, OpenAI's own. */
  openaiBaseUrl?: string | undefined;
  openaiApiKey?: string | undefined;
  anthropicApiKey?: string | undefined;
  anthropicBaseUrl?: string | undefined;
  /** The default model (`gpt-4o-mini`, or `openai:...` / `anthropic:...` to name the provider). */
  model?: string | undefined;
  /** Output tokens one model turn may use. */
  stepTokens: number;
  /** Tokens (input and output) one conversation may use in all. */
  threadTokens: number;
  /** Tokens one user may use per day (UTC). */
  dailyTokens: number;
  /** Tool calls one request may make before the agent must answer. */
  stepCap: number;
}

function bool(value: string | undefined, name: string): boolean {
  if (value === undefined || value === "" || value === "0" || value === "false") return false;
  if (value === "1" || value === "true") return true;
  throw new Error(`${name} must be true or false, got "${value}"`);
}

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== "");
}

function mode(value: string | undefined, name: string): Mode {
  if (value === undefined || value === "") return "default";
  if (!MODES.includes(value as Mode)) throw new Error(`${name} must be one of ${MODES.join(", ")}, got "${value}"`);
  return value as Mode;
}

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/** `SANDBOX_WORKERS` and `SANDBOX_USER_MAX`: the cap stays below the pool, so one user always leaves a worker free. */
function sandboxPool(env: NodeJS.ProcessEnv): Pick<ServerConfig, "sandboxWorkers" | "sandboxUserMax"> {
  const workers = int(env.SANDBOX_WORKERS, defaultWorkers(), "SANDBOX_WORKERS");
  if (workers < 1) throw new Error("SANDBOX_WORKERS must be at least 1");
  const most = Math.max(1, workers - 1);
  const userMax = int(env.SANDBOX_USER_MAX, most, "SANDBOX_USER_MAX");
  if (userMax < 1 || userMax > most) {
    throw new Error(`SANDBOX_USER_MAX must be from 1 to ${most} (below SANDBOX_WORKERS=${workers}), got ${userMax}`);
  }
  return { sandboxWorkers: workers, sandboxUserMax: userMax };
}

/** The refusal text for a request carrying more calls than one batch may hold (413 / invalid_call). */
export function batchTooLarge(config: Pick<ServerConfig, "maxBatchSize">, calls: number): string {
  return `A batch holds at most ${config.maxBatchSize} calls; this one has ${calls}.`;
}

export function configFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<ServerConfig> = {},
): ServerConfig {
  const config: ServerConfig = {
    host: env.HOST ?? "127.0.0.1",
    port: int(env.PORT, 8787, "PORT"),
    dataDir: resolve(env.DATA_DIR ?? ".data"),
    databaseUrl: databaseUrl(env.DATABASE_URL),
    authToken: env.AUTH_TOKEN,
    mcpToken: env.MCP_TOKEN,
    approvalTimeoutMs: int(env.APPROVAL_TIMEOUT_MS, 5 * 60_000, "APPROVAL_TIMEOUT_MS"),
    approvalPollMs: env.APPROVAL_POLL_MS ? Math.max(1, int(env.APPROVAL_POLL_MS, 0, "APPROVAL_POLL_MS")) : undefined,
    holdMs: int(env.INVOKE_HOLD_MS, 20_000, "INVOKE_HOLD_MS"),
    runMaxMs: int(env.RUN_MAX_MS, 60 * 60_000, "RUN_MAX_MS"),
    leaseMs: int(env.LEASE_MS, 30_000, "LEASE_MS"),
    maxBodyBytes: int(env.MAX_BODY_BYTES, 4 * 1024 * 1024, "MAX_BODY_BYTES"),
    headersTimeoutMs: int(env.HEADERS_TIMEOUT_MS, 20_000, "HEADERS_TIMEOUT_MS"),
    requestTimeoutMs: int(env.REQUEST_TIMEOUT_MS, 60_000, "REQUEST_TIMEOUT_MS"),
    maxConnectionsPerClient: int(env.MAX_CONNECTIONS_PER_CLIENT, 256, "MAX_CONNECTIONS_PER_CLIENT"),
    maxBatchSize: int(env.MAX_BATCH_SIZE, 1000, "MAX_BATCH_SIZE"),
    maxCallsPerRun: int(env.MAX_CALLS_PER_RUN, 5000, "MAX_CALLS_PER_RUN"),
    actionTimeoutMs: int(env.ACTION_TIMEOUT_MS, 30_000, "ACTION_TIMEOUT_MS"),
    webDir: resolve(env.WEB_DIR ?? "dist/web"),
    assetMaxBytes: int(env.ASSET_MAX_BYTES, 25 * 1024 * 1024, "ASSET_MAX_BYTES"),
    assetQuotaBytes: int(env.ASSET_QUOTA_BYTES, 1024 * 1024 * 1024, "ASSET_QUOTA_BYTES"),
    assetS3: assetBucket(env),
    imageConcurrency: int(env.IMAGE_CONCURRENCY, DEFAULT_IMAGE_CONCURRENCY, "IMAGE_CONCURRENCY"),
    httpAllowPrivate: bool(env.HTTP_ALLOW_PRIVATE, "HTTP_ALLOW_PRIVATE"),
    httpAllowHosts: list(env.HTTP_ALLOW_HOSTS),
    httpMaxResponseBytes: int(env.HTTP_MAX_RESPONSE_BYTES, 10 * 1024 * 1024, "HTTP_MAX_RESPONSE_BYTES"),
    httpMaxRedirects: int(env.HTTP_MAX_REDIRECTS, 5, "HTTP_MAX_REDIRECTS"),
    mcpMode: mode(env.MCP_MODE, "MCP_MODE"),
    webSockets: env.WEBSOCKETS === undefined || env.WEBSOCKETS === "" ? true : bool(env.WEBSOCKETS, "WEBSOCKETS"),
    wsPingMs: int(env.WS_PING_MS, 30_000, "WS_PING_MS"),
    allowTokenAutoMode: bool(env.ALLOW_TOKEN_AUTO_MODE, "ALLOW_TOKEN_AUTO_MODE"),
    mcpSessionsPerUser: int(env.MCP_SESSIONS_PER_USER, 32, "MCP_SESSIONS_PER_USER"),
    mcpIdleMs: int(env.MCP_IDLE_MS, 5 * 60_000, "MCP_IDLE_MS"),
    agent: {
      openaiBaseUrl: env.OPENAI_BASE_URL || undefined,
      openaiApiKey: env.OPENAI_API_KEY || undefined,
      anthropicApiKey: env.ANTHROPIC_API_KEY || undefined,
      anthropicBaseUrl: env.ANTHROPIC_BASE_URL || undefined,
      model: env.AGENT_MODEL || undefined,
      stepTokens: int(env.AGENT_STEP_TOKENS, 4096, "AGENT_STEP_TOKENS"),
      threadTokens: int(env.AGENT_THREAD_TOKENS, 2_000_000, "AGENT_THREAD_TOKENS"),
      dailyTokens: int(env.AGENT_DAILY_TOKENS, 10_000_000, "AGENT_DAILY_TOKENS"),
      stepCap: int(env.AGENT_STEP_CAP, 20, "AGENT_STEP_CAP"),
    },
    ...sandboxPool(env),
    ...overrides,
  };
  if (config.maxBatchSize < 100) throw new Error("MAX_BATCH_SIZE must be at least 100");
  if (config.headersTimeoutMs < 1 || config.requestTimeoutMs < config.headersTimeoutMs)
    throw new Error("HEADERS_TIMEOUT_MS must be at least 1 and REQUEST_TIMEOUT_MS at least HEADERS_TIMEOUT_MS");
  if (config.mcpSessionsPerUser < 1) throw new Error("MCP_SESSIONS_PER_USER must be at least 1");
  if (config.imageConcurrency < 1) throw new Error("IMAGE_CONCURRENCY must be at least 1");
  if (config.maxConnectionsPerClient < 1) throw new Error("MAX_CONNECTIONS_PER_CLIENT must be at least 1");
  return config;
}

/**
 * `ASSET_S3_BUCKET` (and the optional `ASSET_S3_PREFIX`, `ASSET_S3_REGION`, `ASSET_S3_ENDPOINT`,
 * `ASSET_S3_ACCESS_KEY_ID` with `ASSET_S3_SECRET_ACCESS_KEY`): asset bytes in a bucket. Without keys of
 * its own the client takes the AWS SDK's usual ones (AWS_ACCESS_KEY_ID, a profile, an instance role).
 */
function assetBucket(env: NodeJS.ProcessEnv): S3BlobConfig | undefined {
  const bucket = env.ASSET_S3_BUCKET;
  const others = Object.keys(env).filter((name) => name.startsWith("ASSET_S3_") && env[name]);
  if (!bucket) {
    if (others.length > 0) throw new Error(`${others.join(", ")} set without ASSET_S3_BUCKET: name the bucket too.`);
    return undefined;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new Error(`ASSET_S3_BUCKET must be a bucket name (3 to 63 of a-z, 0-9, "." and "-"), got "${bucket}"`);
  }
  const prefix = env.ASSET_S3_PREFIX ?? "";
  if (prefix.startsWith("/") || prefix.includes("//")) {
    throw new Error(`ASSET_S3_PREFIX is the start of each object's name (such as "assets/"), got "${prefix}"`);
  }
  const endpoint = env.ASSET_S3_ENDPOINT || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint)) {
    throw new Error(`ASSET_S3_ENDPOINT must be an http:// or https:// URL, got "${endpoint}"`);
  }
  const accessKeyId = env.ASSET_S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.ASSET_S3_SECRET_ACCESS_KEY || undefined;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new Error("Set both ASSET_S3_ACCESS_KEY_ID and ASSET_S3_SECRET_ACCESS_KEY, or neither (the AWS SDK's own).");
  }
  return {
    bucket,
    prefix,
    region: env.ASSET_S3_REGION || env.AWS_REGION || "us-east-1",
    endpoint,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
  };
}

/** Only Postgres URLs: anything else set in DATABASE_URL is a mistake to report, not to ignore. */
function databaseUrl(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (!/^postgres(ql)?:\/\//.test(value)) {
    throw new Error("DATABASE_URL must be a postgres:// (or postgresql://) URL; leave it unset for SQLite.");
  }
  return value;
}
