/**
 * `npm run action` as a real process on the real store, beside a running server on the same DATA_DIR;
 * and `--help` for every command the CLI entry dispatches.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliOn, runCli } from "../support/cli.ts";
import { storeEnv } from "../support/database.ts";
import { startTestServer, tempDir, WORKFLOWS } from "../support/server.ts";

/** Runs the CLI in a child process without blocking this process (the server under test lives here). */
const cli = (dataDir: string, args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) =>
  cliOn(dataDir, args, options);

async function action(dataDir: string, source: string, ...flags: string[]) {
  return actionWith({}, dataDir, source, ...flags);
}

async function actionWith(env: Record<string, string>, dataDir: string, source: string, ...flags: string[]) {
  const { status, stdout, stderr } = await cli(dataDir, ["action", "-", ...flags], { stdin: source, env });
  return { status, observation: JSON.parse(stdout || "null") as Record<string, unknown> | null, stderr };
}

describe("npm start", () => {
  it("says a port that is taken is in use and how to choose another, instead of a bare EADDRINUSE", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const { status, stdout, stderr } = await runCli(["start"], {
        ...(await storeEnv(tempDir())),
        HOST: "127.0.0.1",
        PORT: String(port),
      });
      expect(status).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toBe(
        `fatal: 127.0.0.1:${port} is in use (another nodetool sandbox, or another program): stop it, or choose another port, e.g. PORT=${port + 1} npm start\n`,
      );
    } finally {
      busy.close();
    }
  });
});

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

  it("prints the result as the action exported it: $-keys as written (a JSON Schema stays one), bytes and assets as JSON", async () => {
    await using server = await startTestServer();
    const out = await action(
      server.dataDir,
      `import { assets } from "@nodetool-ai/sandbox-nodetool/assets";
const saved = await assets.save({ name: "a.bin", content: new Uint8Array([9]) });
const hit = (await searchTools("create workflow")).find((h) => h.name === "create_workflow");
export default { "$ref": "#/a", "$$x": 1, bytes: new Uint8Array([1, 2, 3]), asset: saved.asset, id: saved.asset.id, schema: hit.output_schema };`,
      "--mode",
      "auto",
    );
    expect(out.status).toBe(0);
    const result = out.observation?.result as Record<string, unknown>;
    expect(result).toEqual({
      $ref: "#/a",
      $$x: 1,
      bytes: { $bytes: "AQID" },
      asset: { $asset: result.id },
      id: expect.stringMatching(/^ast_/),
      schema: expect.objectContaining({
        $schema: expect.any(String),
        $ref: "#/$defs/Workflow",
        $defs: expect.any(Object),
      }),
    });
    expect(JSON.stringify(result.schema)).not.toContain("$$");
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

  it('applies ACTION_TIMEOUT_MS as the action\'s deadline, in its error and in describe("contract")', async () => {
    await using server = await startTestServer();
    const env = { ACTION_TIMEOUT_MS: "3000" };
    const looped = await actionWith(env, server.dataDir, "while (true) {}");
    expect(looped.status).toBe(1);
    expect(looped.observation).toMatchObject({
      ok: false,
      error: { code: "timeout", message: expect.stringContaining("time limit of 3000 ms") },
    });
    const described = await actionWith(env, server.dataDir, 'export default describe("contract");');
    expect(described.status, described.stderr).toBe(0);
    expect(described.observation?.result).toContain("Limits: 3 s of run time");
    // --timeout-ms still overrides it.
    const flagged = await actionWith(env, server.dataDir, "while (true) {}", "--timeout-ms", "500");
    expect(JSON.stringify(flagged.observation)).toContain("time limit of 500 ms");
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

describe("user add and user list", () => {
  it("refuses a second user with a taken name, and lists the users with the ids --user takes", async () => {
    const dataDir = tempDir();
    const first = await cli(dataDir, ["user", "add", "Alice"]);
    expect(first.status, first.stderr).toBe(0);
    const alice = JSON.parse(first.stdout) as { userId: string };

    // The same name again (any case, any surrounding blanks): nothing is added and no token is printed.
    const again = await cli(dataDir, ["user", "add", "  alice "]);
    expect(again).toMatchObject({ status: 1, stdout: "" });
    expect(again.stderr).toBe(`There is already a user named "alice" (${alice.userId}); \`user list\` shows them.\n`);
    const blank = await cli(dataDir, ["user", "add", " "]);
    expect(blank).toMatchObject({ status: 1, stdout: "", stderr: "A user's name is 1 to 100 printable characters.\n" });

    const list = await cli(dataDir, ["user", "list"]);
    expect(list.status, list.stderr).toBe(0);
    const { users } = JSON.parse(list.stdout) as { users: { userId: string; name: string; createdAt: string }[] };
    expect(users.map((user) => [user.userId, user.name])).toEqual([
      ["local", "Local user"],
      [alice.userId, "Alice"],
    ]);
    expect(Number.isNaN(Date.parse(users[1]?.createdAt ?? ""))).toBe(false);
  });
});

describe("--help", () => {
  // Each command's usage on stdout, exit 0, and nothing opened (no store, no server, no protocol).
  const commands: [string[], RegExp][] = [
    [
      ["--help"],
      /^usage: node --import tsx server-bridge\/main.ts <command>[^\n]*\nCommands: start, mcp[\s\S]*\n {2}agent "<request>" +the agent in this terminal/,
    ],
    [["-h"], /^usage: node --import tsx server-bridge\/main.ts <command>/],
    [["start", "--help"], /^usage: npm start\n/],
    [
      ["mcp", "--help"],
      /^usage: npm run --silent mcp -- \[--mode plan\|default\|auto\]\n\nServes MCP [\s\S]*--mode m /,
    ],
    [["mcp", "--mode", "auto", "-h"], /^usage: npm run --silent mcp --/],
    [["action", "-h"], /^usage: npm run --silent action -- <file \| ->/],
    [
      ["agent", "--help"],
      /^usage: npm run --silent agent -- "<request>"[\s\S]*--thread id +go on with a stored conversation/,
    ],
    [["user", "--help"], /^usage: user add <name> \| user list\n$/],
    [["token", "--help"], /^usage: token add --name <name>/],
    [["token", "revoke", "-h"], /^usage: token add --name <name>/],
    [["widget", "--help"], /^usage: widget add --origin/],
    [
      ["assets", "--help"],
      /^usage: assets check \| assets copy \[--from <data dir>\] \| assets sweep \[--dry-run\]\nexit: 0 every asset/,
    ],
  ];
  for (const [args, usage] of commands) {
    it(`${args.join(" ")} prints the usage on stdout and exits 0`, async () => {
      const dataDir = join(tempDir(), "never-made");
      const out = await cli(dataDir, args);
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).toMatch(usage);
      expect(out.stderr).toBe("");
      expect(existsSync(dataDir)).toBe(false);
    });
  }

  it("still refuses an unknown command with exit 2", async () => {
    const out = await cli(join(tempDir(), "never-made"), ["--nope"]);
    expect(out.status).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(/^unknown command "--nope"\. Commands: start, mcp/);
  });
});
