/**
 * `widget add --origin <origin> [...]`, `widget list`, `widget revoke <widget id>` (each with an
 * optional `--user <id>`, the owner, default the local user). `add` prints the widget id and its mint
 * key once, as JSON on stdout (the store keeps only the key's hash); `list` shows the owner's widgets
 * with their origins. A running server notices a revocation by the CLI within seconds (its sockets
 * close); requests with the widget's tokens or credentials are refused at once. Exit codes as the
 * other account commands: 0 done, 1 refused, 2 usage.
 */
import { isCodedError } from "../../shared/protocol/errors.ts";
import type { AppServices } from "../app-services.ts";
import { LOCAL_USER } from "../auth/tokens.ts";
import type { Io } from "./io.ts";

export const WIDGET_USAGE = [
  "usage: widget add --origin <https://app.example> [--origin <another>] [--modules a,b] [--max-mode plan|default|auto]",
  "                  [--max-actions n] [--calls-per-minute n] [--act-as-owner] [--user <owner id>]",
  "       widget list [--user <owner id>]",
  "       widget revoke <widget id> [--user <owner id>]",
].join("\n");

const VALUED = new Set(["origin", "modules", "max-mode", "max-actions", "calls-per-minute", "user"]);
const FLAGS = new Set(["act-as-owner"]);

interface Parsed {
  words: string[];
  options: Map<string, string[]>;
}

function parse(argv: readonly string[]): Parsed | undefined {
  const words: string[] = [];
  const options = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("--")) {
      words.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (FLAGS.has(flag) && eq < 0) {
      options.set(flag, ["true"]);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || !VALUED.has(flag)) return undefined;
    options.set(flag, [...(options.get(flag) ?? []), value]);
  }
  return { words, options };
}

function number(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

export async function widgetCommand(
  argv: readonly string[],
  app: Pick<AppServices, "store" | "widgets">,
  io: Io,
): Promise<number> {
  const parsed = parse(argv);
  const usage = () => {
    io.stderr.write(`${WIDGET_USAGE}\n`);
    return 2;
  };
  if (!parsed) return usage();
  const [verb, ...words] = parsed.words;
  const one = (flag: string) => parsed.options.get(flag)?.at(-1);
  const owner = one("user") ?? LOCAL_USER;
  if (!(await app.store.sql("SELECT 1 FROM users WHERE id = ?").get(owner))) {
    io.stderr.write(`There is no user "${owner}".\n`);
    return 1;
  }
  try {
    switch (verb) {
      case "add": {
        const origins = parsed.options.get("origin") ?? [];
        if (words.length > 0 || origins.length === 0) return usage();
        const modules = one("modules")
          ?.split(",")
          .map((m) => m.trim())
          .filter(Boolean);
        const { widget, mintKey } = await app.widgets.add(owner, {
          origins,
          modules,
          maxMode: one("max-mode"),
          maxActions: number(one("max-actions")),
          callsPerMinute: number(one("calls-per-minute")),
          actAsOwner: parsed.options.has("act-as-owner"),
        });
        io.stdout.write(`${JSON.stringify({ widget_id: widget.id, mint_key: mintKey, widget })}\n`);
        io.stderr.write(
          "Shown once: keep the mint key on your own server (it mints visitors' tokens with POST /embed/token); the store holds only its hash.\n",
        );
        return 0;
      }
      case "list":
        if (words.length > 0) return usage();
        io.stdout.write(`${JSON.stringify({ widgets: await app.widgets.list(owner) })}\n`);
        return 0;
      case "revoke": {
        const [id, ...extra] = words;
        if (!id || extra.length > 0) return usage();
        if (!(await app.widgets.revoke(owner, id))) {
          io.stderr.write(`There is no live widget "${id}" of yours; \`widget list\` shows them.\n`);
          return 1;
        }
        io.stdout.write(`${JSON.stringify({ revoked: id })}\n`);
        return 0;
      }
      default:
        return usage();
    }
  } catch (err) {
    if (!isCodedError(err)) throw err;
    io.stderr.write(`${err.message}\n`);
    return 1;
  }
}
