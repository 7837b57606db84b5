import { createTRPCClient, httpLink } from "@trpc/client";
import { describe, expect, it } from "vitest";
import type { AppRouter } from "../../server-bridge/trpc/router.ts";
import { MEMORY, SHARED, startTestServer, WORKFLOWS } from "../support/server.ts";

async function autoRun(server: Awaited<ReturnType<typeof startTestServer>>) {
  const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
  const { runId } = await server.script.run.start.mutate({ sessionId });
  const call = (module: string, exp: string, args: unknown) =>
    server.script.run.invoke.mutate({ runId, module, export: exp, args }) as Promise<
      { ok: true; value: never } | { ok: false; error: { code: string; message: string; issues?: string[] } }
    >;
  return { sessionId, runId, call };
}

describe("first namespaces on the real store", () => {
  it("workflows: create, list, get, update with expected_version, validate, digraph, delete", async () => {
    await using server = await startTestServer();
    const { call } = await autoRun(server);
    const graph = {
      nodes: [
        { id: "a", type: "constant.string", data: { value: "hi" }, position: { x: 0, y: 0 } },
        { id: "b", type: "text.length", data: {}, position: { x: 200, y: 0 }, title: "Len" },
      ],
      edges: [{ id: "e1", source: "a", sourceHandle: "output", target: "b", targetHandle: "text" }],
    };
    const created = await call(WORKFLOWS, "create_workflow", [{ name: "Greeting", description: "d", graph }]);
    expect(created).toMatchObject({ ok: true, value: { name: "Greeting", version: 1 } });
    const id = (created as { value: { id: string } }).value.id;

    expect(await call(WORKFLOWS, "list", [{ query: "greet" }])).toMatchObject({ ok: true, value: { count: 1 } });
    expect(await call(WORKFLOWS, "list", [{ query: "nothing" }])).toMatchObject({ ok: true, value: { count: 0 } });
    // Case aside in every script, not only ASCII (SQLite's own lower() folds ASCII only).
    const school = await call(WORKFLOWS, "create_workflow", [
      { name: "École du soir", graph: { nodes: [], edges: [] } },
    ]);
    for (const query of ["école", "ÉCOLE"]) {
      expect(await call(WORKFLOWS, "list", [{ query }])).toMatchObject({ ok: true, value: { count: 1 } });
    }
    await call(WORKFLOWS, "delete", [(school as { value: { id: string } }).value.id]);
    expect(await call(WORKFLOWS, "get", [{ id }])).toMatchObject({ ok: true, value: { graph } });

    const updated = await call(WORKFLOWS, "update", [id, { name: "Renamed", expected_version: 1 }]);
    expect(updated).toMatchObject({ ok: true, value: { name: "Renamed", version: 2, graph } });
    const stale = await call(WORKFLOWS, "update", [id, { name: "Stale", expectedVersion: 1 }]);
    expect(stale).toMatchObject({ ok: false, error: { code: "capability_failed" } });
    expect((stale as { error: { message: string } }).error.message).toMatch(/version conflict/i);
    expect(await call(WORKFLOWS, "get", [id])).toMatchObject({ value: { name: "Renamed", version: 2 } });

    expect(await call(WORKFLOWS, "validate", [id])).toMatchObject({ ok: true, value: { valid: true, problems: [] } });
    const broken = {
      nodes: [
        { id: "a", type: "x" },
        { id: "a", type: "y" },
        { id: "c", type: "z" },
      ],
      edges: [
        { id: "e1", source: "a", sourceHandle: "o", target: "c", targetHandle: "i" },
        { id: "e2", source: "c", sourceHandle: "o", target: "a", targetHandle: "i" },
        { id: "e3", source: "c", sourceHandle: "o", target: "ghost", targetHandle: "i" },
      ],
    };
    const report = await call(WORKFLOWS, "validate", [{ graph: broken }]);
    expect(report).toMatchObject({ ok: true, value: { valid: false } });
    const kinds = (report as { value: { problems: { kind: string }[] } }).value.problems.map((p) => p.kind).sort();
    expect(kinds).toEqual(["cycle", "duplicate_node_id", "unknown_node"]);

    const dot = await call(WORKFLOWS, "exportDigraph", [id]);
    expect((dot as { value: { dot: string } }).value.dot).toContain('"a" -> "b"');

    expect(await call(WORKFLOWS, "delete", [id])).toMatchObject({ ok: true });
    expect(await call(WORKFLOWS, "get", [id])).toMatchObject({ ok: false, error: { code: "capability_failed" } });
    expect(await call(WORKFLOWS, "delete", [id])).toMatchObject({ ok: false, error: { code: "capability_failed" } });
  });

  it("workflows: every update keeps the version it replaces, read back by version; the newest 50 stay, per user", async () => {
    await using server = await startTestServer();
    const { call } = await autoRun(server);
    const graphOf = (value: string) => ({
      nodes: [{ id: "a", type: "constant.string", data: { value }, position: { x: 0, y: 0 } }],
      edges: [],
    });
    const value = <T>(answer: { ok: boolean; value?: unknown }) => {
      if (!answer.ok) throw new Error(JSON.stringify(answer));
      return answer.value as T;
    };
    const made = value<{ id: string }>(await call(WORKFLOWS, "create", [{ name: "Draft", graph: graphOf("one") }]));
    const id = made.id;
    expect(value(await call(WORKFLOWS, "versions", [id]))).toEqual({ versions: [] });
    value(await call(WORKFLOWS, "update", [id, { graph: graphOf("two") }]));
    value(await call(WORKFLOWS, "update", [id, { name: "Final", description: "the last" }]));

    const { versions } = value<{ versions: Record<string, unknown>[] }>(await call(WORKFLOWS, "versions", [id]));
    expect(versions.map(({ version, name, nodes, edges }) => ({ version, name, nodes, edges }))).toEqual([
      { version: 2, name: "Draft", nodes: 1, edges: 0 },
      { version: 1, name: "Draft", nodes: 1, edges: 0 },
    ]);
    expect(Date.parse(versions[1]?.saved_at as string)).toBeLessThanOrEqual(
      Date.parse(versions[0]?.saved_at as string),
    );
    // An earlier version reads as the workflow was then; the current one as it is.
    const first = value<{ graph: unknown; name: string; version: number }>(
      await call(WORKFLOWS, "get", [id, { version: 1 }]),
    );
    expect(first).toMatchObject({ id, name: "Draft", version: 1, graph: graphOf("one") });
    expect(await call(WORKFLOWS, "get", [id, { version: 3 }])).toMatchObject({
      ok: true,
      value: { name: "Final", description: "the last", version: 3, graph: graphOf("two") },
    });
    const missing = await call(WORKFLOWS, "get", [id, { version: 9 }]);
    expect(missing).toMatchObject({ ok: false, error: { code: "capability_failed" } });
    expect((missing as { error: { message: string } }).error.message).toContain("no kept version 9");
    // Going back is an update with that version's graph: itself a new version, the others kept.
    expect(value(await call(WORKFLOWS, "update", [id, { graph: first.graph }]))).toMatchObject({ version: 4 });
    expect(value<{ versions: unknown[] }>(await call(WORKFLOWS, "versions", [id])).versions).toHaveLength(3);

    // Another user sees none of it, not even that the workflow exists.
    const other = await server.app.credentials.addUser("mallory");
    const theirs = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${server.url}/trpc`, headers: { authorization: `Bearer ${other.token}` } })],
    });
    const { sessionId } = await theirs.session.create.mutate({ mode: "auto" });
    const { runId } = await theirs.run.start.mutate({ sessionId });
    for (const [exp, args] of [
      ["versions", [id]],
      ["get", [id, { version: 1 }]],
    ] as const) {
      const answer = await theirs.run.invoke.mutate({ runId, module: WORKFLOWS, export: exp, args: [...args] });
      expect(answer).toMatchObject({ ok: false, error: { code: "capability_failed" } });
      expect(JSON.stringify(answer)).not.toContain("Draft");
    }

    // Past 50 kept versions the oldest go; deleting the workflow takes its versions with it.
    for (let i = 0; i < 50; i++) value(await call(WORKFLOWS, "update", [id, { description: `edit ${i}` }]));
    const kept = value<{ versions: { version: number }[] }>(await call(WORKFLOWS, "versions", [id])).versions;
    expect(kept).toHaveLength(50);
    expect(kept[0]?.version).toBe(53);
    expect(kept.at(-1)?.version).toBe(4);
    value(await call(WORKFLOWS, "delete", [id]));
    const rows = await server.app.store.sql("SELECT count(*) AS n FROM workflow_versions").get();
    expect(Number((rows as { n: number | string }).n)).toBe(0);
  });

  it("memory: save, list by tag, full-text search ranked, delete; per user", async () => {
    await using server = await startTestServer();
    const { call } = await autoRun(server);
    await call(MEMORY, "save", [{ content: "The user prefers dark roast coffee", tags: ["pref"] }]);
    await call(MEMORY, "save", ["Meeting notes: coffee machine broken, coffee order placed"]);
    await call(MEMORY, "save", [{ content: "Tea is fine too", tags: ["pref"] }]);
    const listed = await call(MEMORY, "list", [{ tag: "pref" }]);
    expect((listed as { value: { memories: unknown[] } }).value.memories).toHaveLength(2);
    const found = (await call(MEMORY, "search", ["coffee"])) as { value: { memories: { content: string }[] } };
    expect(found.value.memories).toHaveLength(2);
    expect(found.value.memories[0]?.content).toMatch(/coffee order/);
    // FTS syntax in user text is inert.
    expect(await call(MEMORY, "search", ['coffee" OR "tea NEAR('])).toMatchObject({ ok: true });
    const id = ((await call(MEMORY, "list", [])) as { value: { memories: { id: string }[] } }).value.memories[0]?.id;
    expect(await call(MEMORY, "delete", [id])).toMatchObject({ ok: true });
    expect(((await call(MEMORY, "list", [])) as { value: { memories: unknown[] } }).value.memories).toHaveLength(2);

    const other = await server.app.credentials.addUser("someone");
    const res = await fetch(`${server.url}/trpc/session.create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${other.token}` },
      body: JSON.stringify({ mode: "auto" }),
    });
    const sessionId = ((await res.json()) as { result: { data: { sessionId: string } } }).result.data.sessionId;
    const live = await server.app.runs.start(other.userId, sessionId);
    const theirs = await server.app.runs.invoke(other.userId, {
      runId: live.id,
      module: MEMORY,
      export: "list",
      args: [],
    });
    expect(theirs).toMatchObject({ ok: true, value: { memories: [] } });
  });

  it("shared: values live for the run and are gone when it ends", async () => {
    await using server = await startTestServer();
    const { call, runId, sessionId } = await autoRun(server);
    expect(await call(SHARED, "share", ["answer", { value: { n: 42 } }])).toMatchObject({ ok: true });
    expect(await call(SHARED, "read", ["answer"])).toMatchObject({ ok: true, value: { value: { n: 42 } } });
    expect(await call(SHARED, "list", [])).toMatchObject({ ok: true, value: { results: [{ key: "answer" }] } });
    await server.script.run.end.mutate({ runId });
    const { runId: next } = await server.script.run.start.mutate({ sessionId });
    expect(
      await server.script.run.invoke.mutate({ runId: next, module: SHARED, export: "read", args: ["answer"] }),
    ).toMatchObject({
      ok: false,
      error: { code: "capability_failed" },
    });
    expect(await server.app.store.sql("SELECT count(*) AS n FROM shared_results").get()).toEqual({ n: 0 });
  });

  it("shared: a run holds at most 1 MB per value (as UTF-8 JSON), 200 keys and 8 MB in all", async () => {
    await using server = await startTestServer();
    const { call } = await autoRun(server);
    const refusal = (answer: Awaited<ReturnType<typeof call>>) => (answer.ok ? undefined : answer.error);
    // 600 000 characters, but 1.2 MB as stored: counted in bytes.
    expect(refusal(await call(SHARED, "share", ["wide", { value: "é".repeat(600_000) }]))).toMatchObject({
      code: "capability_failed",
      message: expect.stringMatching(/1200002 bytes as JSON; a shared result holds at most 1000000/),
    });
    const big = "x".repeat(990_000);
    for (let i = 0; i < 8; i++)
      expect(await call(SHARED, "share", [`k${i}`, { value: big }])).toMatchObject({ ok: true });
    expect(refusal(await call(SHARED, "share", ["k8", { value: big }]))).toMatchObject({
      code: "capability_failed",
      message: expect.stringMatching(/a run holds at most 8000000/),
    });
    // Overwriting a key replaces its bytes rather than adding to them.
    expect(await call(SHARED, "share", ["k0", { value: big }])).toMatchObject({ ok: true });
    expect(await call(SHARED, "share", ["k0", { value: 1 }])).toMatchObject({ ok: true });
    for (let i = 8; i < 200; i++)
      expect(await call(SHARED, "share", [`k${i}`, { value: i }])).toMatchObject({ ok: true });
    expect(refusal(await call(SHARED, "share", ["one too many", { value: 0 }]))?.message).toMatch(/already shares 200/);
  });

  it("the dispatcher refuses unknown modules, exports, non-array args and bad arguments with codes", async () => {
    await using server = await startTestServer();
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto", modules: ["workflows"] });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const call = (module: string, exp: string, args: unknown) =>
      server.script.run.invoke.mutate({ runId, module, export: exp, args });
    expect(await call(MEMORY, "list", [])).toMatchObject({ ok: false, error: { code: "unknown_module" } });
    expect(await call("@nodetool-ai/sandbox-nodetool/workflow", "list", [])).toMatchObject({
      ok: false,
      error: { code: "unknown_module", message: expect.stringContaining("Did you mean") },
    });
    expect(await call(WORKFLOWS, "lst", [])).toMatchObject({
      ok: false,
      error: { code: "unknown_export", message: expect.stringContaining('"list"') },
    });
    expect(await call(WORKFLOWS, "list", { limit: 1 })).toMatchObject({ ok: false, error: { code: "invalid_call" } });
    expect(await call(WORKFLOWS, "get", [1, 2, 3])).toMatchObject({ ok: false, error: { code: "invalid_call" } });
    const bad = await call(WORKFLOWS, "list", [{ limit: -1 }]);
    expect(bad).toMatchObject({
      ok: false,
      error: { code: "invalid_tool_arguments", issues: [expect.stringContaining("limit")] },
    });
  });

  it("catalog.get lists each mounted module with wire names, methods, categories and JSON Schemas", async () => {
    await using server = await startTestServer();
    const { sessionId } = await server.script.session.create.mutate({ modules: ["workflows", "memory"] });
    const catalog = await server.script.catalog.get.query({ sessionId });
    expect(catalog.modules.map((m) => m.name)).toEqual(["workflows", "memory"]);
    const create = catalog.modules[0]?.exports.find((e) => e.name === "create_workflow");
    expect(create).toMatchObject({ method: "create", category: "write", input_schema: { type: "object" } });
    expect((create?.input_schema as { required?: string[] } | undefined)?.required).toEqual(["name"]);
    // And the output's, derived from the spec's output schema (strict: no key it does not name).
    expect(create?.output_schema).toMatchObject({
      $ref: "#/$defs/Workflow",
      $defs: { Workflow: { type: "object", additionalProperties: false } },
    });
  });
});
