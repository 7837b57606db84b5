/**
 * Starts one scripted model server for manual trials:
 *   node --import tsx tests/support/fake-models-cli.ts --kind openai --port 8799 [--models a,b] [script.json]
 * The script file is a JSON array of ScriptedTurn (see fake-models.ts); once it is played out every
 * turn answers "done.". Point the server at it with OPENAI_BASE_URL (or the Anthropic equivalent).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type FakeModelServer, type ScriptedTurn, startFakeAnthropic, startFakeOpenAI } from "./fake-models.ts";

const { values, positionals } = parseArgs({
  options: {
    kind: { type: "string", default: "openai" },
    port: { type: "string", default: "0" },
    models: { type: "string" },
  },
  allowPositionals: true,
});

const kind = values.kind;
if (kind !== "openai" && kind !== "anthropic") {
  process.stderr.write(`--kind must be openai or anthropic, not "${kind}"\n`);
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`--port must be a port number, not "${values.port}"\n`);
  process.exit(2);
}

const scriptFile = positionals[0];
const parsed: unknown = scriptFile ? JSON.parse(readFileSync(scriptFile, "utf8")) : [];
if (!Array.isArray(parsed)) {
  process.stderr.write("the script file must hold a JSON array of turns\n");
  process.exit(2);
}
const script = parsed as ScriptedTurn[];
const models = values.models?.split(",").filter(Boolean);
const options = { script, port, ...(models ? { models } : {}) };
const server: FakeModelServer = kind === "openai" ? await startFakeOpenAI(options) : await startFakeAnthropic(options);

process.stdout.write(
  `scripted ${kind} server on ${server.url} (${script.length} scripted turns; models: ${server.models.join(", ")})\n`,
);
process.stdout.write(
  kind === "openai"
    ? `  OPENAI_BASE_URL=${server.url} OPENAI_API_KEY=sk-fake\n`
    : `  base URL ${server.url}, ANTHROPIC_API_KEY=sk-ant-fake\n`,
);

const stop = () => {
  void server.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
