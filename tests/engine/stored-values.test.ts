/**
 * Job rows keep workflow values in the boundary encoding: an asset reference or bytes arriving over the
 * wire (decoded to an `AssetRef` / `Uint8Array` on the host) is stored as `{$asset}` / `{$bytes}`, in
 * the job's inputs, its graph, each node's outputs and the job's outputs, and leaves again as a
 * reference; a data key starting with `$` is stored escaped, so data that merely looks like a
 * reference is never revived as one.
 */
import { describe, expect, it } from "vitest";
import { startTestServer, WORKFLOWS } from "../support/server.ts";
import { answerValue, edge, JOBS, type JobResult, node, openRun } from "./support.ts";

describe("wire values in stored jobs", () => {
  it("stores assets, bytes and $-keys as markers and returns them as references", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    const outputs = ["pic", "raw", "fixed", "note"];
    // Arguments in the boundary encoding: {$asset}, {$bytes}, and a data key "$note" escaped as "$$note".
    const graph = {
      nodes: [
        node("pic", "workflow.input", { name: "pic" }),
        node("raw", "workflow.input", { name: "raw" }),
        node("note", "workflow.input", { name: "note" }),
        node("fixed", "constant.json", { value: { $asset: "as_graph" } }),
        ...outputs.map((name) => node(`out_${name}`, "workflow.output", { name })),
      ],
      edges: outputs.map((name) => edge(name, `out_${name}`, "value")),
    };
    const inputs = { pic: { $asset: "as_in" }, raw: { $bytes: "AQID" }, note: { $$note: "x" } };
    const job = answerValue<JobResult>(await call(WORKFLOWS, "run", [{ graph, inputs }]));
    const expected = { pic: { $asset: "as_in" }, raw: { $bytes: "AQID" }, fixed: { $asset: "as_graph" } };
    expect(job).toMatchObject({ status: "completed", outputs: { ...expected, note: { $$note: "x" } } });

    const row = (await server.app.store
      .sql("SELECT inputs, graph, outputs, nodes FROM jobs WHERE id = ?")
      .get(job.job_id)) as { inputs: string; graph: string; outputs: string; nodes: string };
    expect(JSON.parse(row.inputs)).toEqual(inputs);
    expect(JSON.parse(row.outputs)).toEqual({ ...expected, note: { $$note: "x" } });
    const storedGraph = JSON.parse(row.graph) as { nodes: { id: string; data: Record<string, unknown> }[] };
    expect(storedGraph.nodes.find((n) => n.id === "fixed")?.data).toEqual({ value: { $asset: "as_graph" } });
    const nodes = JSON.parse(row.nodes) as Record<string, { outputs?: unknown }>;
    expect(nodes.raw?.outputs).toEqual({ output: { $bytes: "AQID" } });

    // Read back through jobs.get: inputs and node outputs leave as references again.
    const detail = answerValue<JobResult & { inputs: unknown }>(
      await call(JOBS, "get", [{ job_id: job.job_id, include_node_outputs: true }]),
    );
    expect(detail.inputs).toEqual(inputs);
    expect(detail.nodes?.find((n) => n.id === "pic")?.outputs).toEqual({ output: { $asset: "as_in" } });
  });

  it("never revives data that looks like an asset reference, in the graph, the inputs or a node's output", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    // What an action sends for the plain object {$asset: "as_theirs"}: data, escaped on the wire.
    const lookalike = { $$asset: "as_theirs" };
    const graph = {
      nodes: [
        node("given", "workflow.input", { name: "given" }),
        node("fixed", "constant.json", { value: lookalike }),
        node("load", "asset.load", {}),
        node("out_given", "workflow.output", { name: "given" }),
        node("out_fixed", "workflow.output", { name: "fixed" }),
      ],
      edges: [edge("given", "out_given", "value"), edge("fixed", "out_fixed", "value"), edge("fixed", "load", "asset")],
    };
    const job = answerValue<JobResult>(await call(WORKFLOWS, "run", [{ graph, inputs: { given: lookalike } }]));
    // The asset node got data, not a reference: it refuses it, and no asset was read.
    expect(job.status).toBe("failed");
    expect(job.error).toMatchObject({ node_id: "load" });
    const row = (await server.app.store.sql("SELECT inputs, graph, nodes FROM jobs WHERE id = ?").get(job.job_id)) as {
      inputs: string;
      graph: string;
      nodes: string;
    };
    expect(JSON.parse(row.inputs)).toEqual({ given: lookalike });
    expect(row.graph).toContain('"$$asset":"as_theirs"');
    const nodes = JSON.parse(row.nodes) as Record<string, { outputs?: unknown }>;
    expect(nodes.fixed?.outputs).toEqual({ output: lookalike });
    // Read back, it is still data.
    const detail = answerValue<JobResult & { inputs: unknown }>(
      await call(JOBS, "get", [{ job_id: job.job_id, include_node_outputs: true }]),
    );
    expect(detail.inputs).toEqual({ given: lookalike });
    expect(detail.nodes?.find((n) => n.id === "given")?.outputs).toEqual({ output: lookalike });
  });
});
