/**
 * Test fixtures: a real server on loopback over a real SQLite file in a fresh temp directory, and
 * tRPC clients as a script (bearer token) and as the signed-in browser (cookie, same origin).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, httpBatchStreamLink, httpLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { EventSource } from "eventsource";
import { type AppHandle, type Logger, startApp } from "../../server-bridge/app.ts";
import { configFromEnv, type ServerConfig } from "../../server-bridge/config.ts";
import type { AppRouter } from "../../server-bridge/trpc/router.ts";
import { databaseFor, dropDatabaseFor } from "./database.ts";

export interface TestServer extends AppHandle {
  dataDir: string;
  token: string;
  /** A script's client: `Authorization: Bearer <admin token>`. */
  script: ReturnType<typeof createTRPCClient<AppRouter>>;
  /** A signed-in browser page's client: login cookie, same-origin headers, event stream. */
  browser(): Promise<ReturnType<typeof createTRPCClient<AppRouter>>>;
  /** The cookie of a fresh browser login. */
  login(): Promise<string>;
  restart(overrides?: Partial<ServerConfig>): Promise<TestServer>;
  [Symbol.asyncDispose](): Promise<void>;
}

export function tempDir(prefix = "nt-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A server on a fresh (or the given) data directory. Most suites script sessions in `auto` mode with
 * the admin token, so the fixture opts in as an operator would (`ALLOW_TOKEN_AUTO_MODE`); the refusal
 * itself is tested with the default, `allowTokenAutoMode: false` (tests/integration/auth.test.ts).
 */
export async function startTestServer(
  overrides: Partial<ServerConfig> = {},
  dataDir = tempDir(),
  /** The server's log (silent by default). */
  log: Logger = () => {},
): Promise<TestServer> {
  const config = configFromEnv(
    {},
    {
      port: 0,
      dataDir,
      databaseUrl: await databaseFor(dataDir),
      webDir: join(dataDir, "no-web"),
      allowTokenAutoMode: true,
      ...overrides,
    },
  );
  const handle = await startApp(config, log);
  const token = handle.app.credentials.adminToken;
  const url = handle.url;

  const login = async () => {
    const res = await fetch(`${url}/?token=${encodeURIComponent(token)}`, { redirect: "manual" });
    const cookie = res.headers.get("set-cookie");
    if (res.status !== 303 || !cookie) throw new Error(`login failed: ${res.status}`);
    return cookie.split(";")[0] as string;
  };

  const browser = async () => {
    const cookie = await login();
    const headers = { cookie, origin: url, "sec-fetch-site": "same-origin" };
    return createTRPCClient<AppRouter>({
      links: [
        splitLink({
          condition: (op) => op.type === "subscription",
          true: httpSubscriptionLink({
            url: `${url}/trpc`,
            EventSource,
            eventSourceOptions: {
              fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers ?? {}), ...headers } }),
            },
          }),
          false: httpBatchStreamLink({ url: `${url}/trpc`, headers }),
        }),
      ],
    });
  };

  const script = createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${url}/trpc`, headers: { authorization: `Bearer ${token}` } })],
  });

  let closed = false;
  const dispose = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  const server: TestServer = {
    ...handle,
    dataDir,
    token,
    script,
    browser,
    login,
    close: dispose,
    restart: async (next = {}) => {
      await dispose();
      return startTestServer({ ...overrides, ...next }, dataDir, log);
    },
    [Symbol.asyncDispose]: async () => {
      await dispose();
      await dropDatabaseFor(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/** The gate's decision and the outcome of each audited call of `capability` in a run, in order. */
export async function auditedDecisions(server: TestServer, runId: string, capability: string): Promise<unknown[]> {
  await server.app.audit.flush();
  return await server.app.store
    .sql("SELECT decision, outcome FROM audit WHERE run_id = ? AND capability = ? ORDER BY id")
    .all(runId, capability);
}

export const WORKFLOWS = "@nodetool-ai/sandbox-nodetool/workflows";
export const MEMORY = "@nodetool-ai/sandbox-nodetool/memory";
export const SHARED = "@nodetool-ai/sandbox-nodetool/shared";

/**
 * Sends a call again, same callId, while the server answers `{pending: true}`, as an HTTP client does:
 * once its approval is answered a held call settles at the next re-send, or at one after it when the
 * call itself outlasts the hold (a loaded machine).
 */
export async function untilSettled(send: () => Promise<unknown>): Promise<unknown> {
  for (;;) {
    const answer = await send();
    if (!(answer && typeof answer === "object" && "pending" in answer)) return answer;
  }
}
