/**
 * `npm run --silent mcp` / `node server-bridge/main.ts mcp [--mode plan|default|auto]`: MCP over stdio,
 * bound to the local user, on the same $DATA_DIR as a running server (WAL, busy timeout, own leases,
 * renewed while it lives). Stdout carries nothing but protocol: `console.log` and friends are sent to
 * stderr before anything else runs, and so are the server's own logs. Resolves with the exit code when
 * the client closes stdin.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { MODES, type Mode } from "../../shared/capabilities/types.ts";
import { createServices } from "../app.ts";
import { LOCAL_USER } from "../auth/tokens.ts";
import { configFromEnv } from "../config.ts";
import { defaultLibrary } from "../packs/index.ts";
import { keepLeases } from "../runs/leases.ts";
import { createMcpServer } from "./server.ts";

export const MCP_USAGE = "usage: npm run --silent mcp -- [--mode plan|default|auto]";

export const MCP_HELP = `${MCP_USAGE}

Serves MCP (the tools execute_code and view_image) over stdin and stdout for the local user, on the
store in $DATA_DIR (a running server's too). Stdout carries the protocol only; logs go to stderr.

  --mode m    the gate's mode: plan, default or auto (default: MCP_MODE, else default)
  --help      this text`;

export function parseMcpArgs(argv: readonly string[]): { mode?: Mode } | { error: string } {
  let mode: Mode | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = arg.startsWith("--mode=") ? arg.slice("--mode=".length) : arg === "--mode" ? argv[++i] : undefined;
    if (value === undefined) return { error: `unexpected argument ${arg}` };
    if (!MODES.includes(value as Mode)) return { error: `--mode must be one of ${MODES.join(", ")}` };
    mode = value as Mode;
  }
  return mode ? { mode } : {};
}

/** Everything a library or a stray debug line would print goes to stderr: stdout is the protocol's. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

export async function mcpStdioCommand(argv: readonly string[]): Promise<number> {
  keepStdoutForProtocol();
  const args = parseMcpArgs(argv);
  if ("error" in args) {
    process.stderr.write(`${args.error}\n${MCP_USAGE}\n`);
    return 2;
  }
  const config = configFromEnv();
  const app = await createServices(config);
  const leases = keepLeases(app);
  // Every action of this session runs on the process's pool: start its workers before the first.
  void app.sandbox.warm();
  const session = await createMcpServer({
    app,
    caller: { user: LOCAL_USER, via: "mcp" },
    mode: args.mode ?? config.mcpMode,
    library: defaultLibrary(),
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
  });
  await session.server.connect(transport);
  await closed;
  leases.dispose();
  await session.close();
  await app.sandbox.dispose();
  await app.runs.endAll();
  await app.jobs.dispose();
  await app.audit.flush();
  await app.store.dispose();
  return 0;
}
