/**
 * The action contract: the text an agent reads before writing an action (the `execute_code` tool's
 * description, the CLI's help). It states only what the sandbox enforces; keep it in step with
 * worker/host (limits.ts defaults, the result rules) and with the static import check.
 */
import { moduleSpecifier } from "../capabilities/table.ts";
import type { PackInfo } from "../protocol/worker.ts";
import { packSpecifier } from "./facade.ts";

export interface ContractOptions {
  mounted: readonly string[];
  packs: readonly PackInfo[];
  timeoutMs?: number;
  /**
   * One line of methods per module (MCP's compact catalog): the modules are then listed by name under
   * one specifier pattern, each with its line, so the catalog costs no second list of modules.
   */
  methodsOf?: (module: string) => string;
}

export function actionContract(options: ContractOptions): string {
  const seconds = Math.round((options.timeoutMs ?? 30_000) / 1000);
  const { methodsOf } = options;
  const modules =
    methodsOf && options.mounted.length
      ? `  ${moduleSpecifier("<module>")} for each module below (its methods by category):\n${options.mounted.map((m) => `  ${m} - ${methodsOf(m)}`).join("\n")}`
      : options.mounted.map((m) => `  ${moduleSpecifier(m)}`).join("\n") || "  (none)";
  const packs = options.packs.map((p) => `  ${packSpecifier(p.name)}  ${p.description}`).join("\n") || "  (none)";
  return `Write one JavaScript action (an ES module) that runs in a sandbox (QuickJS). Plain computation is local; everything else is a capability you import.

Result: the value of \`export default\` (top-level await works). Instead of exports you may end with a top-level \`return value;\`, but not both. No default export means the result is null. The result must be JSON, Uint8Array or assets: functions, symbols, BigInt and cycles are refused; at most about 1 MB of JSON.

Imports: only these capability modules
${modules}
and these library packs
${packs}
Any other import is refused before the action runs, as is a named import a module does not export. Each module exports every capability by its wire name (\`list_workflows\`), a namespace object named after the module with short names (\`workflows.list\`), and the same object as its default export:
  import { workflows } from "${moduleSpecifier(options.mounted[0] ?? "workflows")}";
  const page = await workflows.list({ limit: 20 });
Arguments: one object of named arguments, or the leading positional ones then an object (\`workflows.get("wf_1")\`). Bytes are Uint8Array both ways.

Failures: a refused or failed call throws a CapabilityError with .code, .capability, .message (and .issues for invalid arguments); so does a method a module lacks (unknown_export). Catch it to recover; uncaught, the action fails with that code. Calls that need the user's approval wait for it; in plan mode, only reads run.

Types: describe(name?) returns TypeScript declarations: a module's (describe("workflows")), one capability's arguments and result (describe("workflows.list")), or the limits, globals and error codes (describe("contract")). Read them, never guess a result's shape.

Helpers (globals): console.log/info/warn/error (captured as logs); batch(items, fn, {concurrency, stopOnError}) runs fn per item, never throws, and settles each as {ok, index, item, value | error}; capabilities() lists the mounted modules and their methods; searchTools(query, max?) finds capabilities by words; \`nodetool.<module>.<method>()\` is the same calls without an import; await openWorkflow(id?) mirrors a workflow (no id: the one open in the editor) with synchronous edits (addNode, connect, node(id).set, ...) that commit() replays as ui calls.

Limits: ${seconds} s of run time (approval waits do not count), 64 MiB of memory, a bounded stack, at most 1000 capability calls, 64 KiB of logs. No network, no timers, no file system: only capabilities reach outside.

You get back: {ok, result?, error?: {code, message, line?, column?}, logs, calls: [{capability, ok, ms}], duration_ms}, cut to size with a visible marker when too large.`;
}
