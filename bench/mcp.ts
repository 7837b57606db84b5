/**
 * `npm run bench:mcp`: the stdio round trip of a trivial `execute_code` (`export default 1`) on our MCP
 * server, divided by (a bare QuickJS context create + eval + dispose, bench/sandbox.ts's baseline, plus
 * the round trip of a trivial tool call on a minimal SDK server: this file, started with
 * `--minimal-server`), all measured in the same run over the same transport. Target: at most 2.5.
 * Also prints the size of the `execute_code` description (target: at most 4,000 characters), and, to
 * show where the time goes, the same action alone on a sandbox host in this process (worker thread,
 * fresh runtime and context, no store, no protocol), and the CPU every process spends per call (the client,
 * and our server with its sandbox workers) with the floor that sets on this machine's cores.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { NodeSandboxHost } from "../server-bridge/sandbox/host.ts";
import { cpuSeconds, hasProc } from "./cpu.ts";
import { bareQuickJsMs } from "./sandbox.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** Calls before timing: the QuickJS wasm and the servers' JavaScript reach steady state only after a while. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 100);
/** Calls whose CPU is read (/proc counts in 10 ms ticks: enough calls that a tick is a small part of one). */
const CPU_ROUNDS = Number(process.env.BENCH_CPU_ROUNDS ?? 1000);

async function minimalServer(): Promise<void> {
  const server = new McpServer({ name: "minimal", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "echo", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({
      content: [{ type: "text", text }],
    }),
  );
  await server.connect(new StdioServerTransport());
}

async function connect(args: string[], env: Record<string, string>): Promise<{ client: Client; pid: number | null }> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", ...args],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "ignore",
  });
  await client.connect(transport, { timeout: 60_000 });
  return { client, pid: transport.pid };
}

/**
 * CPU milliseconds per call, every thread of this process (the client) and of the server's (its sandbox
 * workers too), over CPU_ROUNDS calls back to back; undefined without /proc.
 */
async function cpuPerCall(serverPid: number | null, call: () => Promise<unknown>): Promise<number | undefined> {
  if (!hasProc || serverPid === null) return undefined;
  const used = () => cpuSeconds(process.pid) + cpuSeconds(serverPid);
  const before = used();
  for (let i = 0; i < CPU_ROUNDS; i++) await call();
  return (1000 * (used() - before)) / CPU_ROUNDS;
}

async function median(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

async function bench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-mcp-"));
  const { client: ours, pid: oursPid } = await connect(["server-bridge/main.ts", "mcp", "--mode", "auto"], {
    DATA_DIR: dataDir,
  });
  const { client: minimal } = await connect(["bench/mcp.ts", "--minimal-server"], {});
  try {
    const { tools } = await ours.listTools();
    const description = tools.find((t) => t.name === "execute_code")?.description ?? "";
    const options = { timeout: 30_000 };
    const execute = async () => {
      const result = await ours.callTool(
        { name: "execute_code", arguments: { risk: "low", description: "bench", code: "export default 1;" } },
        undefined,
        options,
      );
      if (result.isError) throw new Error(`execute_code failed: ${JSON.stringify(result.content)}`);
    };
    const executeMs = await median(execute);
    const cpuMs = await cpuPerCall(oursPid, execute);
    const minimalMs = await median(() =>
      minimal.callTool({ name: "echo", arguments: { text: "1" } }, undefined, options),
    );
    const sandbox = await NodeSandboxHost.start();
    const sandboxMs = await median(() =>
      sandbox.run("export default 1;", { mounted: [], packs: [], router: () => [] }),
    );
    await sandbox.dispose();
    const bare = await bareQuickJsMs();
    const ratio = executeMs / (bare + minimalMs);
    console.log(`execute_code description: ${description.length} chars (target <= 4000)`);
    console.log(`stdio round trip, median of ${ROUNDS}:`);
    console.log(`  trivial execute_code                       ${executeMs.toFixed(3)} ms`);
    console.log(`  trivial tool, minimal SDK server           ${minimalMs.toFixed(3)} ms`);
    console.log(`  bare QuickJS context create + eval + dispose ${bare.toFixed(3)} ms`);
    console.log(`  ratio execute_code / (bare QuickJS + minimal tool)  ${ratio.toFixed(2)} (target <= 2.5)`);
    console.log(`where the time goes: the action alone on a sandbox host (worker thread, fresh runtime)`);
    console.log(`  sandbox round trip                         ${sandboxMs.toFixed(3)} ms`);
    if (cpuMs !== undefined) {
      const cores = availableParallelism();
      console.log(`  CPU per execute_code, client + server (every thread): ${cpuMs.toFixed(2)} ms on ${cores} cores,`);
      console.log(
        `    so no round trip can take less than ${(cpuMs / cores).toFixed(2)} ms here; the target needs at most ${(2.5 * (bare + minimalMs)).toFixed(2)} ms`,
      );
    }
  } finally {
    await ours.close();
    await minimal.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes("--minimal-server")) await minimalServer();
else await bench();
