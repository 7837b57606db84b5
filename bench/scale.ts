/**
 * Throughput of a trivial `run.invoke` (workflows.list, a read) over HTTP on loopback, by store and
 * number of server processes: SQLite with one server, Postgres with one, and Postgres with two on the
 * same database (each client's session and run on one server, as a load balancer keeps them). Each
 * scenario is bounded in calls and in time; each process's CPU time is printed (the servers', the
 * Postgres backends', this client's). Targets on a 2-core machine: two servers at least 0.9x one (no
 * collapse), Postgres at least 0.5x SQLite. Scaling is only claimed from a machine with 4+ cores.
 *
 *   DATABASE_URL=postgres://... node --import tsx bench/scale.ts [calls] [clients]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import pg from "pg";
import type { AppRouter } from "../server-bridge/trpc/router.ts";
import { cpuSeconds, cpuSecondsOf } from "./cpu.ts";

const CALLS = Number(process.argv[2] ?? 8000);
const CLIENTS = Number(process.argv[3] ?? 16);
const MAX_MS = 60_000;
const TOKEN = "bench-scale-token-0123456789abcdef";
const WORKFLOWS = "@nodetool-ai/sandbox-nodetool/workflows";
const ROOT = new URL("..", import.meta.url).pathname;
const databaseUrl = process.env.DATABASE_URL;

/** CPU seconds of every process named `postgres` (the server and its backends) that is alive now. */
const postgresSeconds = () => cpuSecondsOf(["postgres"]);

async function startServer(dataDir: string, url: string | undefined): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/engine/child-server.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: url ?? "",
      AUTH_TOKEN: TOKEN,
      ALLOW_TOKEN_AUTO_MODE: "true",
      MAX_CALLS_PER_RUN: String(CALLS * 2),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf("\n");
      if (end >= 0) resolve(out.slice(0, end));
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code} before listening`)));
  });
  return { child, url: (JSON.parse(line) as { url: string }).url };
}

async function scenario(name: string, servers: number, url: string | undefined) {
  const dataDir = mkdtempSync(join(tmpdir(), "nt-scale-"));
  const started = await Promise.all(Array.from({ length: servers }, () => startServer(dataDir, url)));
  try {
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, i) => {
        const server = started[i % servers] as { url: string };
        const api = createTRPCClient<AppRouter>({
          links: [httpLink({ url: `${server.url}/trpc`, headers: { authorization: `Bearer ${TOKEN}` } })],
        });
        const { sessionId } = await api.session.create.mutate({ mode: "auto" });
        const { runId } = await api.run.start.mutate({ sessionId });
        return { api, runId };
      }),
    );
    const call = (c: (typeof clients)[number]) =>
      c.api.run.invoke.mutate({ runId: c.runId, module: WORKFLOWS, export: "list", args: [] });
    await Promise.all(clients.map(call)); // warm: every statement prepared, every connection open
    const before = { servers: started.map((s) => cpuSeconds(s.child.pid as number)), pg: postgresSeconds() };
    const self = process.cpuUsage();
    const t0 = performance.now();
    let done = 0;
    let failed = 0;
    await Promise.all(
      clients.map(async (c) => {
        while (done < CALLS && performance.now() - t0 < MAX_MS) {
          done++;
          const answer = await call(c);
          if (!("ok" in answer) || !answer.ok) failed++;
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const own = process.cpuUsage(self);
    const serverCpu = started.map((s, i) => cpuSeconds(s.child.pid as number) - (before.servers[i] as number));
    const perSecond = done / seconds;
    console.log(
      `${name.padEnd(22)} ${String(done).padStart(6)} calls in ${seconds.toFixed(2)} s = ${perSecond.toFixed(0).padStart(6)}/s` +
        `${failed ? ` (${failed} failed)` : ""}; CPU s: servers ${serverCpu.map((s) => s.toFixed(2)).join(" + ")}` +
        `${url ? `, postgres ${(postgresSeconds() - before.pg).toFixed(2)}` : ""}, client ${((own.user + own.system) / 1e6).toFixed(2)}`,
    );
    return perSecond;
  } finally {
    for (const s of started) s.child.kill("SIGTERM");
    await Promise.all(started.map((s) => new Promise((resolve) => s.child.once("exit", resolve))));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A fresh schema for one Postgres scenario, so runs never see each other's rows. */
async function freshSchema(admin: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
  await client.query(`CREATE SCHEMA ${name}`);
  await client.end();
  const url = new URL(admin);
  url.searchParams.set("options", `-c search_path=${name}`);
  return url.toString();
}

console.log(`trivial run.invoke over HTTP, ${CALLS} calls from ${CLIENTS} concurrent clients per scenario`);
const sqlite = await scenario("sqlite, 1 server", 1, undefined);
if (!databaseUrl) {
  console.log("DATABASE_URL is not set: the Postgres scenarios are skipped.");
} else {
  const one = await scenario("postgres, 1 server", 1, await freshSchema(databaseUrl, "bench_scale_1"));
  const two = await scenario("postgres, 2 servers", 2, await freshSchema(databaseUrl, "bench_scale_2"));
  console.log(`postgres 2 servers / 1 server: ${(two / one).toFixed(2)}x (target >= 0.9x)`);
  console.log(`postgres 1 server / sqlite 1 server: ${(one / sqlite).toFixed(2)}x (target >= 0.5x)`);
}
