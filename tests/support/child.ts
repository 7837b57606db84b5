/**
 * A real server in a process of its own (tests/engine/child-server.ts) on the store of `dataDir`, for
 * tests that SIGKILL it: started from the environment, it answers once it listens.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter } from "../../server-bridge/trpc/router.ts";
import { storeEnv } from "./database.ts";

const CHILD = fileURLToPath(new URL("../engine/child-server.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface ChildServer {
  child: ChildProcess;
  url: string;
  /** A script's client (the admin token). */
  script: ReturnType<typeof createTRPCClient<AppRouter>>;
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>;
}

export async function startChild(dataDir: string, env: Record<string, string>): Promise<ChildServer> {
  const token = env.AUTH_TOKEN ?? "child-server-test-token-0123456789abcdef";
  const child = spawn(process.execPath, ["--import", "tsx", CHILD], {
    cwd: ROOT,
    // Scripts below create auto sessions with the admin token: the operator opts in.
    env: { ...process.env, ...(await storeEnv(dataDir)), AUTH_TOKEN: token, ALLOW_TOKEN_AUTO_MODE: "true", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`child server exited early (${code})`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
  });
  const url = (JSON.parse(line) as { url: string }).url;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    child,
    url,
    script: createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${url}/trpc`, headers: { authorization: `Bearer ${token}` } })],
    }),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
