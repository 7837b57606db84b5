/**
 * MCP over stdio with the SDK's own client: a spawned `node --import tsx server-bridge/main.ts mcp` on a
 * temp $DATA_DIR, bound to the local user. Stdout must carry nothing but protocol.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../server-bridge/store/db.ts";
import { MODULE_NAMES } from "../../shared/capabilities/table.ts";
import { Observation } from "../../shared/protocol/worker.ts";
import { storeConfig } from "../support/database.ts";
import { stdioClient, TIMEOUT, WORKFLOWS } from "./support.ts";

describe("MCP over stdio (auto mode)", () => {
  let mcp: Awaited<ReturnType<typeof stdioClient>>;
  beforeAll(async () => {
    mcp = await stdioClient({ args: ["--mode", "auto"], env: { ACTION_TIMEOUT_MS: "1500" } });
  });
  afterAll(async () => {
    await mcp?.[Symbol.asyncDispose]();
  });

  it("lists exactly execute_code and view_image", async () => {
    const { tools } = await mcp.client.listTools(undefined, TIMEOUT);
    expect(tools.map((t) => t.name).sort()).toEqual(["execute_code", "view_image"]);
    const execute = tools.find((t) => t.name === "execute_code");
    expect(execute?.inputSchema.required).toEqual(["risk", "description", "code"]);
    expect(execute?.description?.length).toBeLessThanOrEqual(4000);
    expect(execute?.description).toContain("workflows - read: list, get");
  });

  it("runs an action that creates and lists workflows on the store", async () => {
    const { result, observation } = await mcp.run(
      `import { workflows } from "${WORKFLOWS}";
       const made = await workflows.create("From stdio");
       const page = await workflows.list();
       export default { id: made.id, names: page.workflows.map((w) => w.name) };`,
    );
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual(observation);
    expect(observation).toMatchObject({ ok: true, result: { names: ["From stdio"] } });
    // The row is in the SQLite file every other process of this $DATA_DIR reads.
    const { dataDir, databaseUrl } = await storeConfig(mcp.dataDir);
    const store = await openStore(dataDir, databaseUrl);
    try {
      const row = await store
        .sql("SELECT name, user_id FROM workflows WHERE id = ?")
        .get((observation.result as { id: string }).id);
      expect(row).toEqual({ name: "From stdio", user_id: "local" });
    } finally {
      await store.dispose();
    }
  });

  it("answers the result as the action exported it: $-keys as written (a JSON Schema stays one), bytes and assets as JSON", async () => {
    const { result, observation } = await mcp.run(
      `import { assets } from "@nodetool-ai/sandbox-nodetool/assets";
       const saved = await assets.save({ name: "a.bin", content: new Uint8Array([9]) });
       const hit = (await searchTools("create workflow")).find((h) => h.name === "create_workflow");
       export default { "$ref": "#/a", "$$x": 1, bytes: new Uint8Array([1, 2, 3]), asset: saved.asset,
         id: saved.asset.id, schema: hit.output_schema };`,
    );
    const shown = observation.result as Record<string, unknown>;
    expect(shown).toEqual({
      $ref: "#/a",
      $$x: 1,
      bytes: { $bytes: "AQID" },
      asset: { $asset: shown.id },
      id: expect.stringMatching(/^ast_/),
      schema: expect.objectContaining({
        $schema: expect.any(String),
        $ref: "#/$defs/Workflow",
        $defs: expect.any(Object),
      }),
    });
    expect(JSON.stringify(shown.schema)).not.toContain("$$");
    // The text content and structuredContent say the same.
    expect(result.structuredContent).toEqual(observation);
  });

  it("refuses an undeclared import before running, naming the module", async () => {
    const { result, observation } = await mcp.run(
      `import { secrets } from "@nodetool-ai/sandbox-nodetool/secrets"; export default await secrets.read();`,
    );
    expect(result.isError).toBe(true);
    expect(observation.error?.code).toBe("import_refused");
    expect(observation.error?.message).toContain("@nodetool-ai/sandbox-nodetool/secrets");
    expect(observation.calls).toEqual([]);
  });

  it("ends a runaway action with timeout and keeps serving", async () => {
    const { observation } = await mcp.run("let n = 0; while (true) { n++; }");
    expect(observation.error?.code).toBe("timeout");
    const next = await mcp.run("export default 6 * 7;");
    expect(next.observation).toMatchObject({ ok: true, result: 42 });
  });

  it("serves the capabilities resource as JSON", async () => {
    const { resources } = await mcp.client.listResources(undefined, TIMEOUT);
    expect(resources.map((r) => r.uri)).toEqual(["nodetool://capabilities"]);
    const read = await mcp.client.readResource({ uri: "nodetool://capabilities" }, TIMEOUT);
    const first = read.contents[0];
    const doc = JSON.parse(first && "text" in first ? first.text : "{}");
    expect(doc.server).toMatchObject({ name: "nodetool-sandbox", mode: "auto" });
    expect(doc.tools.map((t: { name: string }) => t.name)).toEqual(["execute_code", "view_image"]);
    const workflows = doc.modules.find((m: { name: string }) => m.name === "workflows");
    expect(workflows.specifier).toBe(WORKFLOWS);
    expect(workflows.exports).toContainEqual(
      expect.objectContaining({
        name: "create_workflow",
        method: "create",
        category: "write",
        input_schema: expect.objectContaining({ type: "object", required: ["name"] }),
        output_schema: expect.objectContaining({
          $ref: "#/$defs/Workflow",
          $defs: expect.objectContaining({ Workflow: expect.objectContaining({ additionalProperties: false }) }),
        }),
      }),
    );
    const list = workflows.exports.find((e: { name: string }) => e.name === "list_workflows");
    expect(list.output_schema).toMatchObject({ type: "object", required: ["workflows", "count"] });
    expect(doc.modules).toHaveLength(MODULE_NAMES.length);
  });

  it("a result over the cap answers result_too_large, and the observation still matches execute_code's outputSchema", async () => {
    // The SDK's client checks structuredContent against the outputSchema it listed (a mismatch throws).
    const { tools } = await mcp.client.listTools(undefined, TIMEOUT);
    expect(tools.find((t) => t.name === "execute_code")?.outputSchema).toMatchObject({ type: "object" });
    const { result, observation } = await mcp.run(
      `console.log("a line"); export default { text: "x".repeat(400000), n: 1 };`,
    );
    // The observation has room for a result at its cap (shared/sandbox/limits.ts): past it, refused whole.
    expect(observation).toMatchObject({ ok: false, error: { code: "result_too_large" }, logs: ["a line"] });
    expect(result.structuredContent).toEqual(observation);
    expect(Observation.safeParse(result.structuredContent).success).toBe(true);
  });

  it("kept stdout to protocol only", () => {
    expect(mcp.errors).toEqual([]);
  });
});

describe("MCP over stdio (default mode, a client without elicitation)", () => {
  it("refuses a write nobody can be asked about (capability_unavailable, how to choose a mode), and exits when the client closes", async () => {
    const mcp = await stdioClient();
    const { observation } = await mcp.run(
      `import { workflows } from "${WORKFLOWS}"; export default await workflows.create("x");`,
    );
    expect(observation.error?.code).toBe("capability_unavailable");
    expect(observation.error?.message).toMatch(/MCP_MODE=auto|--mode auto/);
    const reads = await mcp.run(
      `import { workflows } from "${WORKFLOWS}"; export default (await workflows.list()).count;`,
    );
    expect(reads.observation).toMatchObject({ ok: true, result: 0 });
    await mcp[Symbol.asyncDispose]();
    // It left on its own when stdin closed, well before the SDK's 2 s grace ran out.
    expect(mcp.closing.ms).toBeLessThan(1900);
    expect(mcp.alive()).toBe(false);
  });
});

describe("MCP over stdio (default mode, a client that answers elicitations)", () => {
  it("asks through the client: accepted, the write runs; declined, it is denied", async () => {
    let answer: "accept" | "decline" = "accept";
    await using mcp = await stdioClient({
      elicit: async () => (answer === "accept" ? { action: "accept", content: {} } : { action: "decline" }),
    });
    const made = await mcp.run(
      `import { workflows } from "${WORKFLOWS}";
       const made = await workflows.create("Asked");
       export default { made: made.name, names: (await workflows.list()).workflows.map((w) => w.name) };`,
    );
    expect(made.observation).toMatchObject({ ok: true, result: { made: "Asked", names: ["Asked"] } });
    answer = "decline";
    const refused = await mcp.run(
      `import { workflows } from "${WORKFLOWS}"; export default await workflows.create("No");`,
    );
    expect(refused.result.isError).toBe(true);
    expect(refused.observation.error?.code).toBe("permission_denied");
    expect(mcp.elicitations.map((e) => e.message.split("\n")[0])).toEqual([
      "Allow create_workflow (write)?",
      "Allow create_workflow (write)?",
    ]);
  });
});
