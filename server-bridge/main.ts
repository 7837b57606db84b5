/**
 * The CLI entry: `start` (serve the app, the API and MCP at /mcp), `mcp` (MCP over stdio for the local
 * user), `action <file|->` (run one action against the local store, observation as JSON on stdout),
 * `agent "<request>"` (the agent in the terminal, on the local store),
 * `user add <name>` (a further user's tokens), `token add|list|revoke` (API tokens for scripts),
 * `widget add|list|revoke` (embeddable widgets and their mint keys). `--help` / `-h` after any of them
 * (or alone) prints its usage on stdout and exits 0, opening nothing.
 * Subcommands print nothing but their own output on stdout.
 */
import { createServices, startApp } from "./app.ts";
import type { AppServices } from "./app-services.ts";
import { checkBlobs } from "./assets/blobs.ts";
import { TOKEN_USAGE, tokenCommand, USER_USAGE, userCommand } from "./cli/accounts.ts";
import { ACTION_HELP, actionCommand, terminalApprover } from "./cli/action.ts";
import { AGENT_HELP, agentCommand } from "./cli/agent.ts";
import { ASSETS_USAGE, assetsCommand } from "./cli/assets.ts";
import { WIDGET_USAGE, widgetCommand } from "./cli/widgets.ts";
import { configFromEnv } from "./config.ts";
import { MCP_HELP, mcpStdioCommand } from "./mcp/stdio.ts";
import { keepLeases, type LeaseKeeper } from "./runs/leases.ts";
import { type LocalRun, openLocalRun } from "./runs/local.ts";
import { storeLabel, WrongStore } from "./store/location.ts";

const COMMANDS =
  'Commands: start, mcp [--mode m], action <file|->, agent "<request>", user add <name>, token add|list|revoke, widget add|list|revoke, assets check|copy';

/** `--help` alone: each command in a line, and where to read more. */
const OVERVIEW = `usage: node --import tsx server-bridge/main.ts <command> [--help]
${COMMANDS}

  start                    serve the app, the API and MCP (npm start)
  mcp                      MCP over stdio for the local user (npm run --silent mcp)
  action <file|->          run one action; its observation as JSON (npm run --silent action)
  agent "<request>"        the agent in this terminal (npm run --silent agent)
  user add <name>          a further user and their token
  token add|list|revoke    API tokens for scripts and agents
  widget add|list|revoke   embeddable widgets and their mint keys
  assets check|copy        whether every asset's bytes are in the storage; copy them into a bucket

<command> --help says more about each.`;

/** What `--help` / `-h` prints after each command (on stdout, exit 0), before anything is opened. */
const HELP = new Map<string, string>([
  ["start", "usage: npm start\n\nServes the app, the API and MCP at /mcp on $HOST:$PORT, with the store in $DATA_DIR."],
  ["mcp", MCP_HELP],
  ["action", ACTION_HELP],
  ["agent", AGENT_HELP],
  ["user", USER_USAGE],
  ["token", TOKEN_USAGE],
  ["widget", WIDGET_USAGE],
  ["assets", ASSETS_USAGE],
]);

const asksForHelp = (args: readonly string[]) => args.some((arg) => arg === "--help" || arg === "-h");

async function main(argv: string[]): Promise<number> {
  const [command = "start", ...rest] = argv;
  const help = asksForHelp([command]) ? OVERVIEW : asksForHelp(rest) ? HELP.get(command) : undefined;
  if (help !== undefined) {
    process.stdout.write(`${help}\n`);
    return 0;
  }
  switch (command) {
    case "start": {
      const config = configFromEnv();
      const handle = await startApp(config);
      const models = handle.app.agent.models;
      process.stdout.write(
        `nodetool sandbox serving on ${handle.url}\n  data: ${config.dataDir}\n  store: ${storeLabel(config.dataDir, config.databaseUrl)}\n  assets: ${handle.app.assets.blobs.where}\n  agent: ${models.where()}\n  open: ${handle.url}/?token=${handle.app.credentials.adminToken}\n`,
      );
      // Whether the bucket and the providers answer, once known; the server is already serving meanwhile.
      if (config.assetS3) {
        void checkBlobs(handle.app.assets.blobs).then(({ ok, text }) =>
          (ok ? process.stdout : process.stderr).write(`  assets: ${text}\n`),
        );
      }
      if (models.configured()) {
        void models.report().then(({ ok, text }) => (ok ? process.stdout : process.stderr).write(`  agent: ${text}\n`));
      }
      const stop = () => {
        void handle.close().then(() => process.exit(0));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      return await new Promise<number>(() => {});
    }
    case "action": {
      // The store opens only once there is an action to run (`--help` touches nothing). It shares
      // $DATA_DIR safely with a running server: WAL, busy timeout, its own leases, kept renewed.
      let app: AppServices | undefined;
      let leases: LeaseKeeper | undefined;
      let local: LocalRun | undefined;
      try {
        return await actionCommand(rest, {
          makeRun: async ({ mode, approver }) => {
            app = await createServices(configFromEnv());
            leases = keepLeases(app);
            local = await openLocalRun(app, { mode, approver });
            const opened = local;
            return { run: opened.live.run, mounted: opened.live.mounted, end: async () => opened.end() };
          },
          // The process's one pool (AppServices.sandbox), disposed with the services below.
          sandbox: () => (app as AppServices).sandbox,
          actionTimeoutMs: () => (app as AppServices).config.actionTimeoutMs,
        });
      } finally {
        if (app) {
          leases?.dispose();
          await local?.end();
          await app.runs.endAll();
          await app.jobs.dispose();
          await app.sandbox.dispose();
          await app.audit.flush();
          await app.store.dispose();
        }
      }
    }
    case "agent": {
      // The CodeAct loop in the terminal, on the local store (shares $DATA_DIR with a running server,
      // with leases of its own, kept renewed).
      const app = await createServices(configFromEnv());
      const leases = keepLeases(app);
      const stop = new AbortController();
      process.once("SIGINT", () => stop.abort());
      const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
      try {
        return await agentCommand(rest, {
          app,
          sandbox: app.sandbox,
          approver: interactive ? terminalApprover(process.stdin, process.stderr) : undefined,
          signal: stop.signal,
        });
      } finally {
        leases.dispose();
        await app.runs.endAll();
        await app.jobs.dispose();
        await app.sandbox.dispose();
        await app.audit.flush();
        await app.store.dispose();
      }
    }
    case "mcp":
      // MCP over stdio: nothing but protocol on stdout (see mcp/stdio.ts).
      return await mcpStdioCommand(rest);
    case "user":
    case "token":
    case "widget":
    case "assets": {
      const app = await createServices(configFromEnv());
      try {
        const run = { user: userCommand, token: tokenCommand, widget: widgetCommand, assets: assetsCommand }[command];
        return await run(rest, app, { stdout: process.stdout, stderr: process.stderr });
      } finally {
        await app.store.dispose();
      }
    }
    default:
      process.stderr.write(`unknown command "${command}". ${COMMANDS}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(err instanceof WrongStore ? err.exitCode : 1);
  },
);
