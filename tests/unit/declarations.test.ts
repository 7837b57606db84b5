/**
 * The generated declarations against the TypeScript compiler (typescript@6 under the `typescript6`
 * alias: TypeScript 7's tsc has no JavaScript API): the bundle itself compiles, a set of example actions
 * that use every helper and the capabilities' positional and named forms type-check, and the actions a
 * new user writes first fail where they would fail at run time, at the line and column of the mistake.
 */
import ts from "typescript6";
import { describe, expect, it } from "vitest";
import { defaultLibrary } from "../../server-bridge/packs/index.ts";
import { MODULE_NAMES } from "../../shared/capabilities/table.ts";
import { declarationBundle, moduleDeclaration } from "../../shared/declarations/modules.ts";

const library = defaultLibrary();
const BUNDLE = declarationBundle(MODULE_NAMES, library.packInfo([...library.names]));

interface Problem {
  file: string;
  line: number;
  column: number;
  message: string;
}

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleDetection: ts.ModuleDetectionKind.Force,
  lib: ["lib.es2023.d.ts"],
  types: [],
  strict: true,
  noEmit: true,
};
/** The standard library and the bundle, parsed once for every check. */
const parsed = new Map<string, ts.SourceFile | undefined>();

/** Type-checks one action (an ES module) against the bundle, as the editor's check does. */
function check(action: string): Problem[] {
  const host = ts.createCompilerHost(OPTIONS);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => {
    if (name === "/action.ts") return ts.createSourceFile(name, action, version);
    if (!parsed.has(name)) {
      parsed.set(name, name === "/nodetool.d.ts" ? ts.createSourceFile(name, BUNDLE, version) : read(name, version));
    }
    return parsed.get(name);
  };
  const program = ts.createProgram(["/nodetool.d.ts", "/action.ts"], OPTIONS, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    return {
      file: d.file?.fileName ?? "",
      line: (at?.line ?? -1) + 1,
      column: (at?.character ?? -1) + 1,
      message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    };
  });
}

const GOOD = [
  `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
const { workflows: list, count } = await workflows.list({ limit: 5 });
const names: string[] = list.map((w) => w.name);
const one = await workflows.get(list[0]?.id ?? "wf_1");
const x: number = one.graph.nodes[0]?.position.x ?? 0;
const job = await workflows.run({ graph: { nodes: [{ id: "a", type: "constant.string" }] }, wait_ms: 100 });
if (job.status === "completed") console.log(job.outputs, job.hint);
export default { names, count, x };`,
  `import { memory } from "@nodetool-ai/sandbox-nodetool/memory";
import { save_memory } from "@nodetool-ai/sandbox-nodetool/memory";
const saved = await memory.save("remember this", { tags: ["a"] });
await save_memory({ content: "and this" });
const found = await memory.search("remember");
export default found.memories.map((m) => [m.id, m.score, saved.created_at]);`,
  `import assets from "@nodetool-ai/sandbox-nodetool/assets";
import { web } from "@nodetool-ai/sandbox-nodetool/web";
const page = await web.request("https://example.com/data.json", { response_type: "json" });
const bytes: Uint8Array = new Uint8Array([1, 2, 3]);
const saved = await assets.save({ name: "a.bin", content: bytes });
const again = await assets.get(saved.asset, { include_bytes: true });
const ref: AssetRef = again.asset;
export default { ok: page.ok, body: page.json ?? page.text, size: again.bytes?.length, id: ref.id };`,
  `import { parse } from "@nodetool-ai/sandbox-packs/csv";
const rows = await parse("a,b\\n1,2");
const settled = await batch([1, 2, 3], async (n) => n * 2, { concurrency: 2 });
const doubled = settled.flatMap((s) => (s.ok ? [s.value] : []));
try {
  await nodetool.jobs.get("job_1");
} catch (err) {
  if (err instanceof CapabilityError && err.code === "invalid_tool_arguments") console.log(err.issues?.join("; "));
}
const g = await openWorkflow();
g.addNode("t", "text.template", { template: "hi {{name}}" }).setTitle("Greeting").moveTo(10, 20);
const committed = await g.commit();
const shown = committed.ok ? committed.nodes.length : committed.failed.error.code;
const help: string = describe("workflows.list") + describe();
const tools = searchTools("list workflows", 3).map((t) => t.signature);
const mounted = capabilities().map((c) => c.namespace);
export default { rows, doubled, shown, help, tools, mounted };`,
];

describe("generated declarations", () => {
  it("the bundle compiles on its own", () => {
    expect(check("export default null;")).toEqual([]);
  });

  it("type-checks example actions that use the capabilities and every helper", () => {
    for (const action of GOOD) expect(check(action)).toEqual([]);
  });

  it("refuses the first actions a new user writes, at the line and column of each mistake", () => {
    const problems = check(`import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";
import { memory } from "@nodetool-ai/sandbox-nodetool/memory";
const names = (await workflows.list()).map((w) => w.name);
await memory.save({ key: "greeting", value: "hi" });
await workflows.lst();
export default names;`);
    const at = problems.map((p) => [p.file, p.line, p.column]);
    expect(at).toContainEqual(["/action.ts", 3, 40]);
    expect(at).toContainEqual(["/action.ts", 4, 14]);
    expect(at).toContainEqual(["/action.ts", 5, 17]);
    const text = problems.map((p) => p.message).join("\n");
    expect(text).toContain("Property 'map' does not exist on type 'ListWorkflowsResult'");
    expect(text).toContain("'key' does not exist in type 'SaveMemoryArgs'");
    expect(text).toContain("Property 'lst' does not exist");
    expect(text).toContain("Did you mean 'list'?");
  });

  it("declares each module once, its namespace object, default export and every wire name", () => {
    const text = moduleDeclaration("jobs") ?? "";
    expect(text).toContain('declare module "@nodetool-ai/sandbox-nodetool/jobs" {');
    for (const name of ["list_jobs", "get_job", "cancel_job", "wait_job"]) {
      expect(text).toContain(`export function ${name}(`);
    }
    expect(text).toContain("export const jobs: {");
    expect(text).toContain("export default jobs;");
    expect(text).toContain("export interface Job {");
    expect(BUNDLE.match(/declare module "@nodetool-ai\/sandbox-nodetool\/jobs"/g)).toHaveLength(1);
  });
});
