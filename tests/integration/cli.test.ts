/** `npm run action` as a real process on the real store, beside a running server on the same DATA_DIR. */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { storeEnv } from "../support/database.ts";
import { startTestServer, tempDir, WORKFLOWS } from "../support/server.ts";

/** Runs the CLI in a child process without blocking this process (the server under test lives here). */
async function action(dataDir: string, source: string, ...flags: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", "server-bridge/main.ts", "action", "-", ...flags], {
    env: { ...process.env, ...(await storeEnv(dataDir)) },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end(source);
  const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { status, observation: JSON.parse(stdout || "null") as Record<string, unknown> | null, stderr };
}

describe("the action CLI", () => {
  it("edits a stored workflow with openWorkflow(id) while the server keeps serving it", async () => {
    await using server = await startTestServer();
    const { sessionId } = await server.script.session.create.mutate({ mode: "auto" });
    const { runId } = await server.script.run.start.mutate({ sessionId });
    const created = (await server.script.run.invoke.mutate({
      runId,
      module: WORKFLOWS,
      export: "create",
      args: ["from the CLI"],
    })) as {
      value: { id: string };
    };
    const id = created.value.id;
    const source = `const g = await openWorkflow(${JSON.stringify(id)});
g.addNode("greet", "constant.string", { value: "hi" }, { x: 0, y: 0 });
g.addNode("len", "text.length", {}, { x: 240, y: 0 });
g.connect("greet", "output", "len", "text");
const done = await g.commit();
export default { ok: done.ok, applied: done.applied, edges: done.edges.length };`;

    const out = await action(server.dataDir, source, "--mode", "auto");
    expect(out.status, out.stderr).toBe(0);
    expect(out.observation).toMatchObject({ ok: true, result: { ok: true, applied: 3, edges: 1 } });
    const stored = await server.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "get", args: [id] });
    expect(stored).toMatchObject({
      ok: true,
      value: { version: 4, graph: { edges: [{ source: "greet", target: "len" }] } },
    });

    // Without a mode the CLI runs reads only: the same edit is denied, exit 1, nothing changes.
    const denied = await action(
      server.dataDir,
      `const g = await openWorkflow(${JSON.stringify(id)});\ng.addNode("x", "constant.number");\nconst r = await g.commit();\nif (!r.ok) throw new Error(r.failed.error.code);`,
    );
    expect(denied.status).toBe(1);
    expect(JSON.stringify(denied.observation)).toContain("permission_denied");
    expect(
      await server.script.run.invoke.mutate({ runId, module: WORKFLOWS, export: "get", args: [id] }),
    ).toMatchObject({ value: { version: 4 } });
  });

  it("refuses an undeclared import with a helpful message and exit code 1", async () => {
    await using server = await startTestServer();
    const out = await action(
      server.dataDir,
      `import { list } from "@nodetool-ai/sandbox-nodetool/workflow";\nexport default list;`,
    );
    expect(out.status).toBe(1);
    expect(out.observation).toMatchObject({ ok: false, error: { code: "import_refused" } });
    expect(String((out.observation?.error as { message: string } | undefined)?.message)).toContain(
      'Did you mean "@nodetool-ai/sandbox-nodetool/workflows"',
    );
  });

  it("prints the usage for --help and exits 0 without opening a store", async () => {
    const dataDir = join(tempDir(), "never-made");
    const child = spawn(process.execPath, ["--import", "tsx", "server-bridge/main.ts", "action", "--help"], {
      env: { ...process.env, ...(await storeEnv(dataDir)) },
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(status).toBe(0);
    expect(stdout).toMatch(/^usage: npm run --silent action -- <file \| ->/);
    expect(stdout).toMatch(/\(no --mode\)\s+reads run; every call that needs approval is denied \(permission_denied\)/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("with no --mode, runs reads and denies a write: there is no one to ask", async () => {
    await using server = await startTestServer();
    const out = await action(
      server.dataDir,
      `import { workflows } from "${WORKFLOWS}";
const n = (await workflows.list()).count;
await workflows.create("no");
export default n;`,
    );
    expect(out.status).toBe(1);
    expect(out.observation).toMatchObject({
      ok: false,
      error: { code: "permission_denied", message: expect.stringMatching(/no user to ask/) },
    });
    expect(await server.app.store.sql("SELECT count(*) AS n FROM workflows").get()).toEqual({ n: 0 });
  });
});
