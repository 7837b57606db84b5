/**
 * The code node on the real server-side sandbox (a QuickJS worker thread), through run_workflow on a
 * real server: it computes from its input in both accepted forms, a runaway one times out and fails
 * its job naming the node, imports of any kind are refused, a running one stops when its job is
 * cancelled, and code that tries to step outside the wrapper is refused before it runs.
 */
import { describe, expect, it } from "vitest";
import { startTestServer, WORKFLOWS } from "../support/server.ts";
import { answerValue, edge, JOBS, type JobResult, node, openRun } from "./support.ts";

const runGraph = async (
  call: Awaited<ReturnType<typeof openRun>>["call"],
  graph: { nodes: unknown[]; edges: unknown[] },
  inputs: Record<string, unknown> = {},
) => answerValue<JobResult>(await call(WORKFLOWS, "run", [{ graph, inputs }]));

/** One code node fed by a constant, its output named "out". */
const codeGraph = (code: string, input: unknown, extra: Record<string, unknown> = {}) => ({
  nodes: [
    node("given", "constant.json", { value: input }),
    node("code", "code.run", { code, ...extra }),
    node("out", "workflow.output", { name: "out" }),
  ],
  edges: [edge("given", "code", "input"), edge("code", "out", "value")],
});

describe("the code node", () => {
  it("computes from its input, as a function expression or as a function body, and feeds the next node", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    expect(server.app.jobs.code.started).toBe(false);

    const job = await runGraph(
      call,
      {
        nodes: [
          node("n", "workflow.input", { name: "n" }),
          node("double", "code.run", { code: "(input) => ({ doubled: input * 2, label: 'n=' + input })" }),
          node("pick", "json.get", { path: "doubled" }),
          node("sum", "code.run", {
            code: "const squares = input.map((x) => x * x);\n// a comment on the last line\nreturn squares.reduce((a, b) => a + b, 0);",
            input: [1, 2, 3],
          }),
          node("out", "workflow.output", { name: "doubled" }),
          node("out2", "workflow.output", { name: "label" }),
          node("label", "json.get", { path: "label" }),
          node("out3", "workflow.output", { name: "sum" }),
        ],
        edges: [
          edge("n", "double", "input"),
          edge("double", "pick", "object"),
          edge("pick", "out", "value"),
          edge("double", "label", "object"),
          edge("label", "out2", "value"),
          edge("sum", "out3", "value"),
        ],
      },
      { n: 21 },
    );
    expect(job).toMatchObject({ status: "completed", outputs: { doubled: 42, label: "n=21", sum: 14 }, error: null });
    expect(server.app.jobs.code.started).toBe(true);

    // Async functions are awaited; undefined becomes null; $-keys and bytes keep their form. The code
    // sees an asset as {$asset: id}; what it returns is its own data, so such an object stays data
    // (escaped on the wire), never a reference the code could have forged.
    const values = await runGraph(
      call,
      codeGraph(
        "async (input) => ({ same: input, bytes: new Uint8Array([1, 2, 3]), nothing: undefined, $note: 'kept' })",
        { asset: { $asset: "as_1" }, list: [1, "two", null] },
      ),
    );
    expect(values.outputs?.out).toEqual({
      same: { asset: { $$asset: "as_1" }, list: [1, "two", null] },
      bytes: { $bytes: "AQID" },
      $$note: "kept",
    });
  });

  it("fails the job naming the node when the code runs away, and the next code node still runs", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const job = await runGraph(call, codeGraph("(input) => { while (true) {} }", 1, { timeout_ms: 300 }));
    expect(job.status).toBe("failed");
    expect(job.error).toMatchObject({ code: "timeout", node_id: "code", node_type: "code.run" });
    expect(job.error?.message).toMatch(/Node "code" \(code\.run\) failed: .*time limit of 300 ms/);
    expect(job.nodes?.find((n) => n.id === "code")).toMatchObject({ status: "failed", error: { code: "timeout" } });

    const memory = await runGraph(
      call,
      codeGraph("() => { const held = []; for (;;) held.push(new Array(100000).fill(1)); }", null),
    );
    expect(memory.error).toMatchObject({ code: "memory_limit", node_id: "code" });

    const thrown = await runGraph(call, codeGraph("(input) => {\n  throw new Error('bad ' + input);\n}", 7));
    expect(thrown.error).toMatchObject({ code: "action_failed", node_id: "code" });
    expect(thrown.error?.message).toMatch(/bad 7.*\(line 2 of the code\)/);

    expect((await runGraph(call, codeGraph("(input) => input + 1", 1))).outputs).toEqual({ out: 2 });
  });

  it("refuses every import: static, literal dynamic, and computed (checked by the sandbox itself)", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const cases = [
      'import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";\nreturn workflows.list();',
      'async () => (await import("@nodetool-ai/sandbox-nodetool/workflows")).workflows.list()',
      'async () => { const m = await import("@nodetool-ai/sandbox-packs/csv"); return m.csv.parse("a"); }',
    ];
    for (const code of cases) {
      const job = await runGraph(call, codeGraph(code, null));
      expect(job.error, code).toMatchObject({ code: "import_refused", node_id: "code" });
    }
    // An import built at run time gets past any reading of the source; the sandbox's loader refuses it.
    const computed = await runGraph(
      call,
      codeGraph(
        'async () => { const name = ["@nodetool-ai", "sandbox-nodetool", "workflows"].join("/"); return new Function("n", "return import(n)")(name); }',
        null,
      ),
    );
    expect(computed.error).toMatchObject({ code: "import_refused", node_id: "code" });
  });

  it("refuses code that is not one function or one body before it runs, so nothing can step outside the wrapper", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const cases: [string, RegExp][] = [
      ["(input) => input\n); globalThis.hacked = true; (1", /syntax error/],
      ["input.n * 2", /not a function.*\(input\) => input\.n \* 2/],
      ["(input) => input /* never closed", /syntax error/],
      ["export default 1;", /cannot export/],
    ];
    for (const [code, why] of cases) {
      const job = await runGraph(call, codeGraph(code, { n: 1 }));
      expect(job.error, code).toMatchObject({ code: "action_failed", node_id: "code" });
      expect(job.error?.message, code).toMatch(why);
    }
    // A closing brace in a body cannot end the wrapper's function either.
    const body = await runGraph(call, codeGraph("return 1; }; export const x = 2; {", null));
    expect(body.error).toMatchObject({ code: "action_failed" });
  });

  it("stops a running code node at once when its job is cancelled", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const started = answerValue<{ job_id: string }>(
      await call(WORKFLOWS, "start", [{ graph: codeGraph("() => { for (;;) {} }", null, { timeout_ms: 30_000 }) }]),
    );
    // Wait until the code node is running inside the sandbox.
    for (let i = 0; i < 100; i++) {
      const job = answerValue<JobResult>(await call(JOBS, "get", [started.job_id]));
      if (job.nodes?.find((n) => n.id === "code")?.status === "running") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    answerValue(await call(JOBS, "cancel", [started.job_id]));
    // Cancelled, not failed on its 30 s limit: the cancel stopped it (a wait that ends early says "running").
    const job = answerValue<JobResult>(await call(JOBS, "wait", [{ job_id: started.job_id, wait_ms: 20_000 }]));
    expect(job.status).toBe("cancelled");
    // The worker was interrupted, not left spinning: the next code node runs straight away.
    const next = await runGraph(call, codeGraph("(input) => input * 3", 5, { timeout_ms: 2000 }));
    expect(next).toMatchObject({ status: "completed", outputs: { out: 15 } });
  });
});
