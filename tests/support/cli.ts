/**
 * The CLI entry (server-bridge/main.ts) as a real child process, for tests of what an operator sees:
 * its exit code, stdout and stderr. The environment is exactly the one given on top of this process's
 * own, with no store chosen for it (`DATABASE_URL` unset unless given), so a test states the store.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { storeEnv } from "./database.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

function spawnCli(args: readonly string[], env: Record<string, string>): ChildProcess {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  return spawn(process.execPath, ["--import", "tsx", "server-bridge/main.ts", ...args], {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/**
 * Runs one command to its end, `stdin` (default nothing) on its standard input. Bounded: a CLI that
 * hangs fails the test instead of the suite.
 */
export async function runCli(
  args: readonly string[],
  env: Record<string, string>,
  options: { stdin?: string | undefined; timeoutMs?: number } = {},
) {
  const child = spawnCli(args, env);
  child.stdin?.end(options.stdin ?? "");
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
  const result = await collect(child);
  clearTimeout(timer);
  return result;
}

/** A child process's exit status and its whole stdout and stderr, once it has closed. */
export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

/** A command on the store of `dataDir` as this suite runs it: SQLite there, or its Postgres schema when DATABASE_URL is set. */
export async function cliOn(
  dataDir: string,
  args: readonly string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return runCli(args, { ...(await storeEnv(dataDir)), ...options.env }, { stdin: options.stdin });
}

/** `start` as a child process: resolves with its banner once it printed the `open:` line. */
export async function startCli(env: Record<string, string>) {
  const child = spawnCli(["start"], { HOST: "127.0.0.1", PORT: "0", ...env });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const banner = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (/\n\s*open: .*\n/.test(stdout)) resolve(stdout);
    });
    child.once("exit", (code) => reject(new Error(`start exited early (${code}): ${stderr}`)));
  });
  const url = /serving on (\S+)/.exec(banner)?.[1] ?? "";
  return {
    banner,
    url,
    /** Everything it printed so far, on stdout and on stderr. */
    output: () => ({ stdout, stderr }),
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
