/** `GET /types`: each module's declarations and the bundle, to a signed-in page or a bearer token only. */
import { describe, expect, it } from "vitest";
import { TypesIndex } from "../../shared/declarations/model.ts";
import { startTestServer } from "../support/server.ts";

describe("GET /types", () => {
  it("serves one module's .d.ts and the bundle, authenticated like the API", async () => {
    await using server = await startTestServer();
    const bearer = { authorization: `Bearer ${server.token}` };

    const memory = await fetch(`${server.url}/types/memory.d.ts`, { headers: bearer });
    expect(memory.status).toBe(200);
    expect(memory.headers.get("content-type")).toBe("application/typescript; charset=utf-8");
    const text = await memory.text();
    expect(text).toContain('declare module "@nodetool-ai/sandbox-nodetool/memory" {');
    expect(text).toContain("export function save_memory(args: SaveMemoryArgs): Promise<SaveMemoryResult>;");
    expect(text).not.toContain("sandbox-nodetool/workflows");

    const cookie = await server.login();
    const index = await fetch(`${server.url}/types/index.d.ts`, { headers: { cookie } });
    expect(index.status).toBe(200);
    const bundle = await index.text();
    for (const name of ["workflows", "memory", "ui", "jobs", "nodes", "assets", "collections", "web", "shared"]) {
      expect(bundle).toContain(`declare module "@nodetool-ai/sandbox-nodetool/${name}" {`);
    }
    expect(bundle).toContain('declare module "@nodetool-ai/sandbox-packs/csv" {');
    expect(bundle).toContain("declare class CapabilityError extends Error {");
    expect(bundle).toContain("declare function describe(nameOrModule?: string): string;");
    const csv = await fetch(`${server.url}/types/csv.d.ts`, { headers: bearer });
    expect(await csv.text()).toContain("export function parse(");

    // The same declarations as data, for the page's editor.
    const data = await fetch(`${server.url}/types/index.json`, { headers: { cookie } });
    expect(data.status).toBe(200);
    const model = TypesIndex.parse(await data.json());
    const workflows = model.modules.find((m) => m.name === "workflows");
    const list = workflows?.exports.find((e) => e.method === "list");
    expect(list?.signatures).toEqual(["workflows.list(args?: ListWorkflowsArgs): Promise<ListWorkflowsResult>"]);
    expect(list?.args.map((a) => a.key)).toEqual(["limit", "offset", "query"]);
    expect(list?.declaration).toContain("export interface ListWorkflowsResult {");
    expect(model.modules.map((m) => m.specifier)).toContain("@nodetool-ai/sandbox-packs/zip");
    expect((await fetch(`${server.url}/types/index.json`)).status).toBe(401);

    const anonymous = await fetch(`${server.url}/types/memory.d.ts`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: "unauthorized" } });
    const foreign = await fetch(`${server.url}/types/memory.d.ts`, {
      headers: { cookie, origin: "http://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(foreign.status).toBe(403);
    const missing = await fetch(`${server.url}/types/memroy.d.ts`, { headers: bearer });
    expect(missing.status).toBe(404);
    const refusal = (await missing.json()) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe("unknown_module");
    expect(refusal.error.message).toContain("/types/memory.d.ts");
  });
});
