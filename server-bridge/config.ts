/** Server configuration from the environment, with the defaults DESIGN.md section 10 promises. */
import { resolve } from "node:path";

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  authToken?: string | undefined;
  mcpToken?: string | undefined;
  approvalTimeoutMs: number;
  holdMs: number;
  runMaxMs: number;
  leaseMs: number;
  maxBodyBytes: number;
  maxBatchSize: number;
  maxCallsPerRun: number;
  /** Wall-time deadline of one action (approval waits not counted); the page and server sandboxes use it. */
  actionTimeoutMs: number;
  /** Where the built page lives (served at `/`). */
  webDir: string;
}

function int(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

export function configFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<ServerConfig> = {},
): ServerConfig {
  const config: ServerConfig = {
    host: env.HOST ?? "127.0.0.1",
    port: int(env.PORT, 8787, "PORT"),
    dataDir: resolve(env.DATA_DIR ?? ".data"),
    authToken: env.AUTH_TOKEN,
    mcpToken: env.MCP_TOKEN,
    approvalTimeoutMs: int(env.APPROVAL_TIMEOUT_MS, 5 * 60_000, "APPROVAL_TIMEOUT_MS"),
    holdMs: int(env.INVOKE_HOLD_MS, 20_000, "INVOKE_HOLD_MS"),
    runMaxMs: int(env.RUN_MAX_MS, 60 * 60_000, "RUN_MAX_MS"),
    leaseMs: int(env.LEASE_MS, 30_000, "LEASE_MS"),
    maxBodyBytes: int(env.MAX_BODY_BYTES, 4 * 1024 * 1024, "MAX_BODY_BYTES"),
    maxBatchSize: int(env.MAX_BATCH_SIZE, 256, "MAX_BATCH_SIZE"),
    maxCallsPerRun: int(env.MAX_CALLS_PER_RUN, 1000, "MAX_CALLS_PER_RUN"),
    actionTimeoutMs: int(env.ACTION_TIMEOUT_MS, 30_000, "ACTION_TIMEOUT_MS"),
    webDir: resolve(env.WEB_DIR ?? "dist/web"),
    ...overrides,
  };
  if (config.maxBatchSize < 100) throw new Error("MAX_BATCH_SIZE must be at least 100");
  return config;
}
