/**
 * `user add <name> | user list` and `token add --name <name> | token list | token revoke <name>` (each with an
 * optional `--user <id>`, default the local user). A new token is printed once, as JSON on stdout;
 * the store keeps only its hash. Usage and refusals go to stderr; the exit code is 0 on success, 1
 * when the store refused (a taken name, nothing to revoke), 2 for a usage error.
 */

import { isCodedError } from "../../shared/protocol/errors.ts";
import type { AppServices } from "../app-services.ts";
import { ApiTokens } from "../auth/api-tokens.ts";
import { LOCAL_USER } from "../auth/tokens.ts";
import type { Io } from "./io.ts";

export const USER_USAGE = "usage: user add <name> | user list";
export const TOKEN_USAGE =
  "usage: token add --name <name> [--user <id>] | token list [--user <id>] | token revoke <name> [--user <id>]";

type Services = Pick<AppServices, "store" | "credentials">;

export async function userCommand(argv: readonly string[], app: Services, io: Io): Promise<number> {
  const [verb, name, ...rest] = argv;
  if (verb === "list" && name === undefined) {
    io.stdout.write(`${JSON.stringify({ users: await app.credentials.listUsers() })}\n`);
    return 0;
  }
  if (verb !== "add" || name === undefined || rest.length > 0) {
    io.stderr.write(`${USER_USAGE}\n`);
    return 2;
  }
  let added: Awaited<ReturnType<Services["credentials"]["addUser"]>>;
  try {
    added = await app.credentials.addUser(name);
  } catch (err) {
    if (!isCodedError(err)) throw err;
    io.stderr.write(`${err.message}\n`);
    return 1;
  }
  io.stdout.write(`${JSON.stringify(added)}\n`);
  io.stderr.write(
    "Shown once: keep both tokens now (the store holds only their hashes). token is the admin token, mcpToken opens /mcp.\n",
  );
  return 0;
}

/** `--flag value` / `--flag=value` options and positional words. */
function parse(argv: readonly string[]): { words: string[]; options: Map<string, string> } | undefined {
  const words: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("--")) {
      words.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || (flag !== "name" && flag !== "user")) return undefined;
    options.set(flag, value);
  }
  return { words, options };
}

export async function tokenCommand(argv: readonly string[], app: Services, io: Io): Promise<number> {
  const parsed = parse(argv);
  const usage = () => {
    io.stderr.write(`${TOKEN_USAGE}\n`);
    return 2;
  };
  if (!parsed) return usage();
  const [verb, ...words] = parsed.words;
  const userId = parsed.options.get("user") ?? LOCAL_USER;
  if (!(await app.store.sql("SELECT 1 FROM users WHERE id = ?").get(userId))) {
    io.stderr.write(`There is no user "${userId}".\n`);
    return 1;
  }
  const tokens = new ApiTokens(app.store);
  try {
    switch (verb) {
      case "add": {
        const name = parsed.options.get("name");
        if (!name || words.length > 0) return usage();
        io.stdout.write(`${JSON.stringify(await tokens.add(userId, name))}\n`);
        io.stderr.write(
          "Shown once: keep it now. It opens the API (Authorization: Bearer <token>) and cannot sign a browser in.\n",
        );
        return 0;
      }
      case "list":
        if (words.length > 0 || parsed.options.has("name")) return usage();
        io.stdout.write(`${JSON.stringify({ tokens: await tokens.list(userId) })}\n`);
        return 0;
      case "revoke": {
        const [name, ...extra] = words;
        if (!name || extra.length > 0 || parsed.options.has("name")) return usage();
        if (!(await tokens.revoke(userId, name))) {
          io.stderr.write(`There is no API token named "${name}"; \`token list\` shows them.\n`);
          return 1;
        }
        io.stdout.write(`${JSON.stringify({ revoked: name })}\n`);
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
