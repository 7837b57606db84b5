/**
 * The capability dispatcher and argument folding (DESIGN.md section 7): what a facade call's
 * `(module, export, args[])` becomes by the time the implementation sees it, and the refusals
 * (`unknown_module`, `unknown_export`, `invalid_call`) that stop it before `run.invoke`.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { findSpec } from "../../shared/capabilities/table.ts";
import { type AnySpec, defineSpec, type InvokeResult } from "../../shared/capabilities/types.ts";
import { foldArgs } from "../../shared/sandbox/coerce.ts";
import { dispatch } from "../../shared/sandbox/dispatch.ts";
import { testHost } from "./gate-host.ts";

const WORKFLOWS = "@nodetool-ai/sandbox-nodetool/workflows";
const MEMORY = "@nodetool-ai/sandbox-nodetool/memory";
const MOUNTED = ["workflows", "memory"];

function spec(name: string): AnySpec {
  const found = findSpec(name);
  if (!found) throw new Error(`no spec ${name}`);
  return found;
}

function failed(result: InvokeResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}

/** Dispatches in auto mode and returns what the implementation received. */
async function received(module: string, exportName: string, args: unknown[]) {
  using host = testHost({ mode: "auto" });
  const result = await dispatch(host.run, MOUNTED, { module, export: exportName, args });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  expect(host.calls).toHaveLength(1);
  return host.calls[0]?.args;
}

describe("argument folding through the dispatcher", () => {
  it("a lone string fills the declared positional name", async () => {
    expect(await received(WORKFLOWS, "get", ["wf_1"])).toEqual({ workflow_id: "wf_1" });
    expect(await received(MEMORY, "search", ["invoices"])).toEqual({ query: "invoices", limit: 10 });
  });

  it("(string, {...}) merges the positional value with the named arguments", async () => {
    expect(await received(WORKFLOWS, "create", ["Invoices", { description: "monthly" }])).toEqual({
      name: "Invoices",
      description: "monthly",
      graph: { nodes: [], edges: [] },
    });
  });

  it("({...}, {...}) merges left to right", async () => {
    expect(
      await received(WORKFLOWS, "update", [
        { workflow_id: "wf_1", name: "first" },
        { name: "second", expected_version: 2 },
      ]),
    ).toEqual({ workflow_id: "wf_1", name: "second", expected_version: 2 });
  });

  it("a bare id fills the only required *_id field", async () => {
    expect(await received(WORKFLOWS, "get", [{ id: "wf_7" }])).toEqual({ workflow_id: "wf_7" });
    expect(await received(MEMORY, "delete", [{ id: "mem_3" }])).toEqual({ memory_id: "mem_3" });
  });

  it("camelCase named arguments still reach the implementation as snake_case", async () => {
    expect(await received(WORKFLOWS, "update", ["wf_1", { expectedVersion: 4 }])).toEqual({
      workflow_id: "wf_1",
      expected_version: 4,
    });
  });

  it("an export may be named by its wire name as well as its method", async () => {
    expect(await received(WORKFLOWS, "list_workflows", [])).toEqual({ limit: 50, offset: 0 });
  });
});

describe("foldArgs on its own", () => {
  it("a lone string fills the first required string field when no positional names are declared", () => {
    const local = defineSpec({
      name: "local_rename",
      method: "rename",
      description: "test-only spec, not in the table",
      category: "write",
      input: z.object({ count: z.number().optional(), title: z.string(), note: z.string() }),
      output: z.null(),
    });
    expect(foldArgs(local, ["Hello"])).toEqual({ ok: true, args: { title: "Hello" } });
  });

  it("a bare id is left alone when there is no single required *_id field", () => {
    expect(foldArgs(spec("list_workflows"), [{ id: "x" }])).toEqual({ ok: true, args: { id: "x" } });
    expect(foldArgs(spec("validate_workflow"), [{ id: "x" }])).toEqual({ ok: true, args: { id: "x" } });
  });

  it("an explicit *_id wins over a bare id", () => {
    expect(foldArgs(spec("get_workflow"), [{ id: "a", workflow_id: "b" }])).toEqual({
      ok: true,
      args: { id: "a", workflow_id: "b" },
    });
  });

  it("refuses more positional values than the spec declares", () => {
    const folded = foldArgs(spec("get_workflow"), ["wf_1", "wf_2"]);
    expect(folded.ok).toBe(false);
    expect(!folded.ok && folded.message).toMatch(/positional arguments \(workflow_id\)/);
    expect(foldArgs(spec("list_workflows"), ["x"])).toMatchObject({ ok: false });
  });

  it("refuses a scalar after the named-arguments object", () => {
    expect(foldArgs(spec("create_workflow"), [{ name: "x" }, "y"])).toMatchObject({ ok: false });
  });
});

describe("dispatcher refusals", () => {
  it("args that are not an array are invalid_call, naming module and export, and nothing loads", async () => {
    using host = testHost({ mode: "auto" });
    const error = failed(await dispatch(host.run, MOUNTED, { module: WORKFLOWS, export: "get", args: "wf_1" }));
    expect(error.code).toBe("invalid_call");
    expect(error.message).toContain(WORKFLOWS);
    expect(error.message).toContain("get");
    expect(host.loads).toEqual([]);
    expect(host.audits).toEqual([]);
  });

  it("unfoldable args are invalid_call", async () => {
    using host = testHost({ mode: "auto" });
    const error = failed(await dispatch(host.run, MOUNTED, { module: WORKFLOWS, export: "get", args: ["a", "b"] }));
    expect(error.code).toBe("invalid_call");
    expect(error.message).toContain(`${WORKFLOWS} get`);
    expect(host.loads).toEqual([]);
  });

  it("an unknown module is unknown_module with the closest mounted specifier as a hint", async () => {
    using host = testHost({ mode: "auto" });
    const error = failed(
      await dispatch(host.run, MOUNTED, { module: "@nodetool-ai/sandbox-nodetool/workflow", export: "list", args: [] }),
    );
    expect(error.code).toBe("unknown_module");
    expect(error.message).toContain(`Did you mean "${WORKFLOWS}"`);
    expect(host.loads).toEqual([]);
  });

  it("a module that exists but is not mounted for the session is unknown_module", async () => {
    using host = testHost({ mode: "auto" });
    const error = failed(
      await dispatch(host.run, MOUNTED, { module: "@nodetool-ai/sandbox-nodetool/shared", export: "list", args: [] }),
    );
    expect(error.code).toBe("unknown_module");
    expect(error.message).toContain(`Available: ${WORKFLOWS}, ${MEMORY}`);
  });

  it("a bare namespace without the package prefix is unknown_module", async () => {
    using host = testHost({ mode: "auto" });
    const error = failed(await dispatch(host.run, MOUNTED, { module: "workflows", export: "list", args: [] }));
    expect(error.code).toBe("unknown_module");
  });

  it("an unknown export is unknown_export with a hint", async () => {
    using host = testHost({ mode: "auto" });
    const error = failed(await dispatch(host.run, MOUNTED, { module: WORKFLOWS, export: "lst", args: [] }));
    expect(error.code).toBe("unknown_export");
    expect(error.message).toContain(WORKFLOWS);
    expect(error.message).toContain('"lst"');
    expect(error.message).toContain('"list"');
    expect(host.loads).toEqual([]);
  });

  it("a folded call still goes through the whole ladder (plan mode blocks a write)", async () => {
    using host = testHost({ mode: "plan" });
    const error = failed(await dispatch(host.run, MOUNTED, { module: WORKFLOWS, export: "create", args: ["x"] }));
    expect(error.code).toBe("blocked_in_plan_mode");
    expect(host.loads).toEqual([]);
    expect(host.audits).toHaveLength(1);
  });
});
