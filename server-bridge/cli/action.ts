/**
 * `npm run action -- <file | -> [--mode plan|default|auto] [--timeout-ms N] [--modules a,b] [--packs a,b]`
 *
 * Runs one action on the sandbox pool (main.ts passes the process's one; without it, a pool of one
 * worker lives for this command) against the run the caller supplies (the store-backed one in main.ts),
 * prints the observation as JSON on stdout and returns the exit code: 0 when `ok`,
 * 1 when not, 2 for a usage error (`--help` prints ACTION_HELP and returns 0). With no `--mode`, the
 * caller's run uses the headless gate: reads run, every call that needs approval is denied. `--mode default` asks on the terminal when stdin and stdout are a TTY and the action did not
 * come from stdin; otherwise it denies. Every capability module is mounted and every first-party pack
 * allowed unless `--modules` / `--packs` narrow them. Prompts and usage go to stderr, never stdout.
 */
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline/promises";
import { MODULE_NAMES } from "../../shared/capabilities/table.ts";
import { MODES, type Mode } from "../../shared/capabilities/types.ts";
import type { ApprovalAnswer, Approver } from "../../shared/gate/approvals.ts";
import type { CapabilityRun } from "../../shared/gate/invoke.ts";
import { defaultLibrary, type LibraryDispatcher } from "../packs/index.ts";
import { runSandboxedAction } from "../sandbox/action.ts";
import type { NodeExecutor } from "../sandbox/host.ts";
import { type PoolRunOptions, SandboxPool } from "../sandbox/pool.ts";

export interface ActionRunHandle {
  run: CapabilityRun<unknown>;
  /** The session's mounted namespaces; every module when omitted. */
  mounted?: readonly string[];
  /** Ends the run (settles its rows, aborts its signal). */
  end(): Promise<void>;
}

interface Writable {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ActionCommandDeps {
  /**
   * Makes the run the action's calls go to. `mode` undefined: the headless gate. Otherwise a gate in
   * that mode whose approver is `approver` when given, else one that denies ("no user to ask").
   */
  makeRun(options: { mode?: Mode; approver?: Approver }): Promise<ActionRunHandle>;
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout?: Writable;
  stderr?: Writable;
  /** The sandbox to run in, read once the run is made (not disposed here); default: a one-worker pool for this command. */
  sandbox?: () => NodeExecutor<PoolRunOptions>;
  /**
   * The configured deadline of one action (`config.actionTimeoutMs`, as MCP's execute_code uses), read
   * once the run is made; `--timeout-ms` overrides it. Default: the sandbox's own.
   */
  actionTimeoutMs?: () => number;
  library?: LibraryDispatcher;
  /** The terminal prompt used for `--mode default` on a TTY (replaceable in tests). */
  terminalApprover?: () => Approver;
}

interface ParsedArgs {
  source: string;
  mode?: Mode;
  timeoutMs?: number;
  modules?: string[];
  packs?: string[];
}

export const ACTION_USAGE =
  "usage: npm run --silent action -- <file | -> [--mode plan|default|auto] [--timeout-ms N] [--modules a,b] [--packs a,b]";

/** What `--help` prints (on stdout, exit 0). */
export const ACTION_HELP = `${ACTION_USAGE}

Runs one action (an ES module; "-" reads it from stdin) against the local store ($DATA_DIR) and prints
its observation as JSON on stdout: exit 0 when it is ok, 1 when not, 2 for a usage error.

  --mode auto       every call runs
  --mode default    reads run; any other call asks on this terminal when it is interactive (and the
                    action is not read from stdin); otherwise it is denied: there is no one to ask
  --mode plan       reads run; everything else is blocked
  (no --mode)       reads run; every call that needs approval is denied (permission_denied): there is
                    no one to ask
  --timeout-ms N    the action's wall-time deadline (time waiting for an approval not counted);
                    default ACTION_TIMEOUT_MS, else 30000
  --modules a,b     mount only these capability modules (default: all)
  --packs a,b       allow only these library packs (default: all)
  --help            this text`;

export function parseActionArgs(argv: readonly string[]): ParsedArgs | { error: string } | { help: true } {
  const out: Partial<ParsedArgs> = {};
  const list = (value: string) =>
    value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--help" || arg === "-h") return { help: true };
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--mode") {
      const mode = value();
      if (!MODES.includes(mode as Mode)) return { error: `--mode must be one of ${MODES.join(", ")}` };
      out.mode = mode as Mode;
    } else if (flag === "--timeout-ms") {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1 || n > 600_000)
        return { error: "--timeout-ms must be an integer from 1 to 600000" };
      out.timeoutMs = n;
    } else if (flag === "--modules") {
      out.modules = list(value() ?? "");
    } else if (flag === "--packs") {
      out.packs = list(value() ?? "");
    } else if (flag.startsWith("--")) {
      return { error: `unknown option ${flag}` };
    } else if (out.source === undefined) {
      out.source = arg;
    } else {
      return { error: `unexpected argument ${arg}` };
    }
  }
  if (out.source === undefined) return { error: "name a file with the action, or - to read it from stdin" };
  return out as ParsedArgs;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

export async function actionCommand(argv: readonly string[], deps: ActionCommandDeps): Promise<number> {
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  const stdin = deps.stdin ?? process.stdin;
  const usage = (message: string) => {
    stderr.write(`${message}\n${ACTION_USAGE}\n`);
    return 2;
  };
  const args = parseActionArgs(argv);
  if ("help" in args) {
    stdout.write(`${ACTION_HELP}\n`);
    return 0;
  }
  if ("error" in args) return usage(args.error);

  let action: string;
  try {
    action = args.source === "-" ? await readAll(stdin) : await readFile(args.source, "utf8");
  } catch {
    return usage(`cannot read the action from ${args.source}`);
  }

  const library = deps.library ?? defaultLibrary();
  const packs = args.packs ?? [...library.names];
  const unknownPack = packs.find((p) => !library.names.includes(p));
  if (unknownPack) return usage(`unknown pack "${unknownPack}"; packs: ${library.names.join(", ")}`);
  const unknownModule = args.modules?.find((m) => !MODULE_NAMES.includes(m));
  if (unknownModule) return usage(`unknown module "${unknownModule}"; modules: ${MODULE_NAMES.join(", ")}`);

  const interactive = args.mode === "default" && args.source !== "-" && Boolean(stdin.isTTY) && Boolean(stdout.isTTY);
  const approver = interactive ? (deps.terminalApprover ?? (() => terminalApprover(stdin, stderr)))() : undefined;
  const handle = await deps.makeRun({
    ...(args.mode ? { mode: args.mode } : {}),
    ...(approver ? { approver } : {}),
  });
  const mounted = (handle.mounted ?? MODULE_NAMES).filter((m) => !args.modules || args.modules.includes(m));
  const sandbox = deps.sandbox?.() ?? new SandboxPool({ workers: 1 });
  const timeoutMs = args.timeoutMs ?? deps.actionTimeoutMs?.();
  try {
    const { observation } = await runSandboxedAction(sandbox, {
      action,
      run: handle.run,
      mounted,
      packs,
      library,
      limits: timeoutMs ? { timeout_ms: timeoutMs } : undefined,
    });
    stdout.write(`${JSON.stringify(observation)}\n`);
    return observation.ok ? 0 : 1;
  } finally {
    if (!deps.sandbox) await sandbox.dispose();
    await handle.end();
  }
}

/** Asks the person at the terminal (prompt on stderr, answer on stdin). */
export function terminalApprover(stdin: NodeJS.ReadableStream, stderr: Writable): Approver {
  return {
    async ask(request, signal) {
      const rl = createInterface({ input: stdin, output: stderr as NodeJS.WritableStream, terminal: false });
      try {
        const reason = request.agent_message ? `\n  agent says: ${request.agent_message}` : "";
        const question = `\nAllow ${request.capability} (${request.category})? ${request.message}${reason}\n  [y] once  [s] for this session  [N] deny: `;
        const answer = (await rl.question(question, { signal })).trim().toLowerCase();
        const verdict: ApprovalAnswer = answer === "y" ? "allow" : answer === "s" ? "allow_for_session" : "deny";
        return { kind: "answer", answer: verdict, approval_id: request.approval_id, hash: request.hash };
      } finally {
        rl.close();
      }
    },
  };
}
