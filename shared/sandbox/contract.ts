/**
 * The action contract: the text an agent reads before writing an action (the `execute_code` tool's
 * description, the CLI's help). It states only what the sandbox enforces, read from where it is
 * enforced: the limits (limits.ts), the error codes (codes.ts) and the globals the setup module makes
 * (GUEST_GLOBALS, checked against a real action's global object by tests/hostile).
 */
import { moduleSpecifier } from "../capabilities/table.ts";
import type { PackInfo } from "../protocol/worker.ts";
import { ACTION_ERROR_CODES, CALL_ERROR_CODES } from "./codes.ts";
import { packSpecifier } from "./facade.ts";
import { ACTION_LIMITS, MAX_RESULT_CHARS, WASM_MAX_BYTES } from "./limits.ts";

/** The globals the sandbox adds to ECMAScript's own (worker/guest/setup.js defines exactly these). */
export const GUEST_GLOBALS = [
  "console",
  "batch",
  "capabilities",
  "searchTools",
  "describe",
  "nodetool",
  "openWorkflow",
  "CapabilityError",
  "TextEncoder",
  "TextDecoder",
  "atob",
  "btoa",
  "URL",
  "URLSearchParams",
  "structuredClone",
  "crypto",
] as const;

const KIB = 1024;
const MIB = 1024 * 1024;

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

/** The import example, in a module the action may import (workflows when it is mounted). */
function importExample(mounted: readonly string[]): string {
  const sample = mounted.length === 0 || mounted.includes("workflows") ? "workflows" : (mounted[0] as string);
  const call =
    sample === "workflows" ? "const page = await workflows.list({ limit: 20 });" : `await ${sample}.<method>({ ... });`;
  return `  import { ${sample} } from "${moduleSpecifier(sample)}";\n  ${call}`;
}

export function actionContract(options: ContractOptions): string {
  const seconds = Math.round((options.timeoutMs ?? ACTION_LIMITS.timeoutMs) / 1000);
  const { methodsOf } = options;
  const modules =
    methodsOf && options.mounted.length
      ? `  ${moduleSpecifier("<module>")}, methods by category:\n${options.mounted.map((m) => `  ${m} - ${methodsOf(m)}`).join("\n")}`
      : options.mounted.map((m) => `  ${moduleSpecifier(m)}`).join("\n") || "  (none)";
  const packs = options.packs.map((p) => `  ${packSpecifier(p.name)}  ${p.description}`).join("\n") || "  (none)";
  return `Write one JavaScript action (an ES module) for a QuickJS sandbox. Plain computation is local; all else is a capability you import.

Result: the value of \`export default\` (top-level await works), or of a top-level \`return value;\` instead (not both); none: null. JSON, Uint8Array (read back as {$bytes: base64}) or assets ({$asset: id}); no functions, symbols, BigInt, cycles; at most ${MAX_RESULT_CHARS / KIB} KiB of JSON, else result_too_large.

Imports: only these capability modules
${modules}
and these library packs
${packs}
Other imports, and names a module does not export, are refused before the action runs. Each module exports every capability by its wire name (\`list_workflows\`) and a namespace object of short names (\`workflows.list\`), also the default:
${importExample(options.mounted)}
Arguments: one object of named arguments, or leading positional ones then an object (\`workflows.get("wf_1")\`). Bytes are Uint8Array both ways.

Failures: a failed call throws a CapabilityError {code, capability, message, issues?}, as does a method a module lacks (unknown_export); code is one of ${CALL_ERROR_CODES.join(", ")}. Uncaught, the action fails with it; on its own it can end with ${ACTION_ERROR_CODES.join(", ")}. Calls needing the user's approval wait for it; plan mode runs reads only.

Types: describe(name?) gives TypeScript declarations: describe("workflows"), describe("workflows.list"), describe("contract"); read them, never guess a result's shape.

Globals: ECMAScript's own and exactly these: console.log/info/warn/error (captured as logs); batch(items, fn, {concurrency, stopOnError}) runs fn per item and settles each as {ok, index, item, value | error}; capabilities(); searchTools(query, max?); describe(); \`nodetool.<module>.<method>()\` (no import needed); await openWorkflow(id?) mirrors a workflow (no id: the open editor's) with synchronous edits (addNode, connect, node(id).set, ...) that commit() replays as ui calls; CapabilityError; TextEncoder, TextDecoder (UTF-8), atob, btoa, URL, URLSearchParams, structuredClone, crypto.getRandomValues, crypto.randomUUID.

Limits: ${seconds} s of run time (approval waits not counted), ${WASM_MAX_BYTES / MIB} MiB of memory (the sandbox's own included), a bounded stack, ${ACTION_LIMITS.maxCalls} capability calls, ${ACTION_LIMITS.maxLogChars / KIB} KiB of logs. No network, timers or files beyond capabilities.

You get back {ok, result?, error?: {code, message, line?, column?}, logs, calls: [{capability, ok, ms}], duration_ms}, cut to fit, with a marker.`;
}
