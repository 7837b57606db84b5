/**
 * `npm run --silent agent -- "<request>" [--mode plan|default|auto] [--model id] [--steps N] [--thread id|last]
 *   [--attach file]...`, or `--list` / `--find "words"` (the conversations to go on with: agent-threads.ts)
 *
 * The CodeAct loop (shared/agent/loop.ts) in the terminal: the model is called by this process over
 * the configured providers (the same turns and stored threads the page uses), each action runs in a
 * Node sandbox as one run of a local session (no `--mode` asks on the terminal when it is one, as
 * `default`, else is the headless gate, reads only; `--mode` as for `action`), and each view_image is
 * resolved here. The conversation streams as it happens, the final answer last: on a terminal the
 * model's text streams to stdout (the final answer is not printed twice); when stdout is a pipe it
 * carries the final answer only (nothing when the loop ends without one: why goes to stderr), and the
 * model's text streams to stderr with the steps, the prompts and the progress. Exit 0 on a final
 * answer, 1 otherwise, 2 for a usage error (an unknown `--model` too: the message names those on offer;
 * a file `--attach` cannot read or the store refuses, before the model is called). Attached files are
 * saved as the local user's assets and named in the request (cli/attach.ts), as the panel's Attach does.
 */
import { sizeText, withAttachments } from "../../shared/agent/attachments.ts";
import { type AgentEvent, runAgent } from "../../shared/agent/loop.ts";
import { trailingResults } from "../../shared/agent/prompt.ts";
import { MODES, type Mode } from "../../shared/capabilities/types.ts";
import type { Approver } from "../../shared/gate/approvals.ts";
import { isCodedError } from "../../shared/protocol/errors.ts";
import { failedObservation } from "../../shared/sandbox/executor.ts";
import { NO_PROVIDER_HERE } from "../agent/models.ts";
import { imageForModel, resolveImages } from "../agent/request.ts";
import { threadModelClient } from "../agent/services.ts";
import type { AppServices } from "../app-services.ts";
import { LOCAL_USER } from "../auth/tokens.ts";
import { defaultLibrary } from "../packs/index.ts";
import { openLocalRun } from "../runs/local.ts";
import { runSandboxedAction } from "../sandbox/action.ts";
import type { NodeExecutor } from "../sandbox/host.ts";
import type { PoolRunOptions } from "../sandbox/pool.ts";
import { conversationLines, lastConversation } from "./agent-threads.ts";
import { attachFiles } from "./attach.ts";

export const AGENT_USAGE =
  'usage: npm run --silent agent -- "<request>" [--mode plan|default|auto] [--model id] [--steps N] [--thread id|last] [--attach file]...\n       npm run --silent agent -- --list | --find "words"';

export const AGENT_HELP = `${AGENT_USAGE}

Runs the agent in this terminal on the local store ($DATA_DIR): the model (set OPENAI_BASE_URL and
OPENAI_API_KEY, or ANTHROPIC_API_KEY; AGENT_MODEL names the default) writes actions, each runs in a
sandbox, and the conversation streams as it happens, the final answer last. When stdout is a pipe it
carries the final answer only; the rest goes to stderr. Exit 0 on a final answer, 1 otherwise, 2 for a
usage error.

  --mode auto       every call runs
  --mode default    reads run; any other call asks on this terminal (denied when it is not one)
  --mode plan       reads run; everything else is blocked
  (no --mode)       as default on an interactive terminal; otherwise reads only
  --model id        the model (an unknown one is refused, naming those on offer); default AGENT_MODEL
  --steps N         tool calls before the agent must answer (1-200); default AGENT_STEP_CAP, else 20
  --thread id       go on with a stored conversation (each run ends by naming its id); last: the newest
  --attach file     save a file as your asset and name it in the request (repeatable)
  --list            the newest conversations, with their ids (no request)
  --find "words"    the conversations whose title or messages hold the words (no request)
  --help            this text`;

interface Writable {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface AgentCommandDeps {
  app: AppServices;
  /** Where each action runs: the process's sandbox pool. */
  sandbox: NodeExecutor<PoolRunOptions>;
  /** The terminal prompt for `--mode default` (absent when there is no terminal: asks are denied). */
  approver?: Approver | undefined;
  stdout?: Writable;
  stderr?: Writable;
  /** Aborts the loop (Ctrl+C). */
  signal?: AbortSignal;
}

interface AgentArgs {
  request: string;
  /** `--list` (no words) or `--find words`: the conversations, no request. */
  conversations?: { words?: string };
  mode?: Mode;
  model?: string;
  steps?: number;
  thread?: string;
  attach: string[];
}

export function parseAgentArgs(argv: readonly string[]): AgentArgs | { error: string } | { help: true } {
  const out: Partial<AgentArgs> = {};
  const attach: string[] = [];
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s) : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--help" || flag === "-h") return { help: true };
    if (flag === "--mode") {
      const mode = value();
      if (!MODES.includes(mode as Mode)) return { error: `--mode must be one of ${MODES.join(", ")}` };
      out.mode = mode as Mode;
    } else if (flag === "--model") out.model = value();
    else if (flag === "--thread") out.thread = value();
    else if (flag === "--list") out.conversations = {};
    else if (flag === "--find") {
      const found = value()?.trim();
      if (!found) return { error: "--find needs the words to look for" };
      out.conversations = { words: found.slice(0, 200) };
    } else if (flag === "--attach") {
      const file = value();
      if (!file) return { error: "--attach needs a file" };
      attach.push(file);
    } else if (flag === "--steps") {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1 || n > 200) return { error: "--steps must be an integer from 1 to 200" };
      out.steps = n;
    } else if (flag?.startsWith("--")) return { error: `unknown option ${flag}` };
    else words.push(arg);
  }
  const request = words.join(" ").trim();
  if (out.conversations && request) return { error: "--list and --find take no request" };
  if (!request && !out.conversations) return { error: "say what the agent should do, in quotes" };
  return { ...out, request, attach };
}

export async function agentCommand(argv: readonly string[], deps: AgentCommandDeps): Promise<number> {
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  const args = parseAgentArgs(argv);
  if ("help" in args) {
    stdout.write(`${AGENT_HELP}\n`);
    return 0;
  }
  if ("error" in args) {
    stderr.write(`${args.error}\n${AGENT_USAGE}\n`);
    return 2;
  }
  const { app } = deps;
  if (args.conversations) {
    stdout.write(`${(await conversationLines(app, args.conversations.words)).join("\n")}\n`);
    return 0;
  }
  if (args.thread === "last") {
    const last = await lastConversation(app);
    if (last === undefined) {
      stderr.write(`There are no conversations yet: leave out --thread to start one.\n${AGENT_USAGE}\n`);
      return 2;
    }
    args.thread = last;
  }
  if (!app.agent.models.configured()) {
    stderr.write(`${NO_PROVIDER_HERE}\n`);
    return 1;
  }
  if (args.model !== undefined && typeof (await app.agent.models.resolve(args.model)) === "string") {
    stderr.write(`${await unknownModel(app, args.model)}\n${AGENT_USAGE}\n`);
    return 2;
  }
  const known = args.thread === undefined ? undefined : await findThread(app, args.thread);
  if (typeof known === "string") {
    stderr.write(`${known}\n${AGENT_USAGE}\n`);
    return 2;
  }
  const attached = await attachFiles(app, args.attach);
  if ("error" in attached) {
    stderr.write(`${attached.error}\n`);
    return 2;
  }
  const thread = known ?? (await app.agent.threads.create(LOCAL_USER));
  const history = (await app.agent.threads.messages(LOCAL_USER, thread.id)).map((m) => m.message);
  const library = defaultLibrary();
  const signal = deps.signal ?? new AbortController().signal;
  // A person at the terminal is asked, as in the panel; with no one to ask, no mode is reads only.
  const mode = args.mode ?? (deps.approver ? "default" : undefined);
  const printer = new TerminalPrinter(stdout, stderr);
  for (const asset of attached.assets) {
    printer.line(`attached ${asset.name}: asset ${asset.id} (${asset.content_type}, ${sizeText(asset.size)})`);
  }
  const outcome = await runAgent({
    model: threadModelClient(app.agent, LOCAL_USER, thread.id, { model: args.model, known: history.length }),
    history,
    request: withAttachments(args.request, attached.assets),
    stepCap: args.steps ?? app.config.agent.stepCap,
    signal,
    async execute(code) {
      const local = await openLocalRun(app, { mode, approver: deps.approver, threadId: thread.id });
      try {
        const { observation } = await runSandboxedAction(deps.sandbox, {
          action: code,
          run: local.live.run,
          mounted: local.live.mounted,
          packs: local.packs,
          library,
          // The deadline the tool's description states (agentTools), as MCP's execute_code applies it.
          limits: { timeout_ms: app.config.actionTimeoutMs },
          signal,
        });
        return { observation };
      } catch {
        return { observation: failedObservation("run_ended", "The sandbox stopped before the action finished.", 0) };
      } finally {
        await local.end();
      }
    },
    viewImage: (input) => imageForModel(app, LOCAL_USER, input),
    onEvent: (event) => printer.print(event),
  });
  const trailing = trailingResults(outcome.added);
  if (trailing.length > 0) await app.agent.threads.append(thread.id, await resolveImages(app, LOCAL_USER, trailing));
  if (outcome.status === "final") printer.finish(outcome.answer.trim());
  else printer.failed(outcome.answer);
  printer.line(
    `[${outcome.status}] ${outcome.steps} step(s), ${outcome.usage.input_tokens} + ${outcome.usage.output_tokens} tokens; to go on with this conversation: --thread ${thread.id}`,
  );
  return outcome.status === "final" ? 0 : 1;
}

/** An unknown `--model`, for the person at the terminal: the models on offer, by the ids `--model` takes. */
async function unknownModel(app: AppServices, requested: string): Promise<string> {
  const models = await app.agent.models.list();
  const shown = models.slice(0, 30).map((m) => (m.default ? `${m.id} (the default)` : m.id));
  const more = models.length > shown.length ? `, and ${models.length - shown.length} more` : "";
  const offered = shown.length > 0 ? `Models on offer: ${shown.join(", ")}${more}.` : "The providers list no models.";
  return `There is no model "${requested.slice(0, 100)}" here. ${offered} Name one with --model, or leave it out for the default.`;
}

/** The local user's conversation `threadId`, or why not: none such, with the most recent ones named. */
async function findThread(app: AppServices, threadId: string) {
  try {
    return await app.agent.threads.require(LOCAL_USER, threadId);
  } catch (err) {
    if (!isCodedError(err)) throw err;
  }
  const recent = (await app.agent.threads.list(LOCAL_USER, 5)).map((t) => `${t.id} (${t.title})`);
  return `There is no conversation "${threadId}" here. ${recent.length > 0 ? `The most recent: ${recent.join(", ")}.` : "There are none yet: leave out --thread to start one."}`;
}

/**
 * The conversation as it streams: the model's text on stdout when it is a terminal (else on stderr),
 * each step's action and outcome on stderr, each of them starting on a line of its own (both streams
 * share one terminal).
 */
class TerminalPrinter {
  readonly #text: Writable;
  /** Per place written to: streams that are both terminals are one (the same screen). */
  readonly #midLine = new Set<unknown>();
  /** The model's text since the last step: the final answer, once the loop ends on one. */
  #sinceStep = "";

  constructor(
    private readonly stdout: Writable,
    private readonly stderr: Writable,
  ) {
    this.#text = stdout.isTTY ? stdout : stderr;
  }

  print(event: AgentEvent): void {
    switch (event.type) {
      case "text":
        this.#write(this.#text, event.delta);
        this.#sinceStep += event.delta;
        return;
      case "step_started": {
        const input = event.input;
        if (input && "code" in input) {
          this.line(`▶ execute_code: ${input.title ?? input.description}\n${indent(input.code)}`);
        } else if (input) this.line(`▶ view_image: ${input.image_id.slice(0, 80)}`);
        return;
      }
      case "message": {
        const message = event.message;
        if (message.role !== "tool") return;
        this.#sinceStep = "";
        const observation = message.observation;
        if (observation) {
          const calls = observation.calls.map((c) => `${c.capability}${c.ok ? "" : " (failed)"}`).join(", ");
          const outcome = observation.ok
            ? `ok: ${clip(JSON.stringify(observation.result ?? null))}`
            : `${observation.error?.code}: ${observation.error?.message}`;
          this.line(`  ${outcome}${logLines(observation.logs)}${calls ? `\n  calls: ${calls}` : ""}`);
        } else if (message.is_error) {
          const text = message.content.find((part) => part.type === "text");
          this.line(`  ${text?.type === "text" ? clip(text.text) : "tool error"}`);
        }
        return;
      }
      case "usage":
        return;
      default: {
        const never: never = event;
        throw new Error(`unknown agent event ${JSON.stringify(never)}`);
      }
    }
  }

  /** The final answer (or why there is none) on stdout, last; a terminal that just showed it streaming gets it once. */
  finish(answer: string): void {
    const shown = this.#text === this.stdout && this.#sinceStep.trim() === answer.trim();
    // The streamed text's line ends where it streamed, so the answer starts a line of its own when
    // both streams land in one log (`2>&1`).
    if (this.#midLine.has(place(this.#text))) this.#write(this.#text, "\n");
    if (this.#midLine.has(place(this.stdout))) this.#write(this.stdout, "\n");
    if (!shown) this.#write(this.stdout, `${answer}\n`);
  }

  /**
   * Why there is no final answer: on a terminal, where the answer would have been; when stdout is a
   * pipe, on stderr only (the pipe carries a final answer or nothing).
   */
  failed(message: string): void {
    if (this.stdout.isTTY) this.finish(message);
    else this.line(message);
  }

  /** A line on stderr, on a line of its own. */
  line(text: string): void {
    this.#write(this.stderr, `${this.#midLine.has(place(this.stderr)) ? "\n" : ""}${text}\n`);
  }

  #write(to: Writable, text: string): void {
    if (!text) return;
    to.write(text);
    if (text.endsWith("\n")) this.#midLine.delete(place(to));
    else this.#midLine.add(place(to));
  }
}

const place = (stream: Writable): unknown => (stream.isTTY ? "terminal" : stream);

function indent(code: string): string {
  return code
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

const SHOWN_LOGS = 20;

/** The action's console output, as the panel's step card lists it: one line each, the first few. */
function logLines(logs: readonly string[]): string {
  const shown = logs.slice(0, SHOWN_LOGS).map((log) => `\n  log: ${clip(log.replaceAll("\n", "\n       "))}`);
  const more = logs.length - SHOWN_LOGS;
  return `${shown.join("")}${more > 0 ? `\n  … ${more} more log line(s)` : ""}`;
}

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
