/**
 * The CLI entry: `start` (serve the app, the API and later MCP), `user add <name>` (a further user's
 * token). Subcommands print nothing but their own output on stdout.
 */
import { createServices, startApp } from "./app.ts";
import { configFromEnv } from "./config.ts";

async function main(argv: string[]): Promise<number> {
  const [command = "start", ...rest] = argv;
  switch (command) {
    case "start": {
      const config = configFromEnv();
      const handle = await startApp(config);
      process.stdout.write(
        `nodetool sandbox serving on ${handle.url}\n  data: ${config.dataDir}\n  open: ${handle.url}/?token=${handle.app.credentials.adminToken}\n`,
      );
      const stop = () => {
        handle.close().then(() => process.exit(0));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      return await new Promise<number>(() => {});
    }
    case "user": {
      const [verb, name] = rest;
      if (verb !== "add" || !name) {
        process.stderr.write("usage: user add <name>\n");
        return 2;
      }
      const app = createServices(configFromEnv());
      const { userId, token } = app.credentials.addUser(name);
      process.stdout.write(`${JSON.stringify({ userId, token })}\n`);
      app.store.dispose();
      return 0;
    }
    default:
      process.stderr.write(`unknown command "${command}". Commands: start, user add <name>\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`fatal: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
