/**
 * A real server in its own process, for the recovery test: started from the environment (DATA_DIR,
 * LEASE_MS, AUTH_TOKEN), it prints one JSON line `{url}` when listening and runs until it is killed.
 */
import { startApp } from "../../server-bridge/app.ts";
import { configFromEnv } from "../../server-bridge/config.ts";

const handle = await startApp(configFromEnv({ ...process.env, PORT: "0" }), () => {});
process.stdout.write(`${JSON.stringify({ url: handle.url })}\n`);
