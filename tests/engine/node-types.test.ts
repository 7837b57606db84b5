/**
 * Node-type metadata: well-formed, covered by executors, and its declared effects agree with the
 * capability table, since approval prompts are built from them.
 */
import { describe, expect, it } from "vitest";
import { EXECUTORS } from "../../server-bridge/engine/executors/index.ts";
import { findSpec } from "../../shared/capabilities/table.ts";
import {
  canConnect,
  connectionProblem,
  describeEffects,
  effectsOf,
  familyOf,
  HANDLE_TYPES,
  matchesType,
  NODE_TYPES,
  templateInputs,
  templateSlots,
} from "../../shared/graph/node-types.ts";
import { AssetRef } from "../../shared/protocol/values.ts";

const REQUIRED_FAMILIES = ["constant", "text", "math", "json", "list", "workflow", "code"];

describe("node-type metadata", () => {
  it("has unique ids dotted by family, covering the families the editor and engine need", () => {
    const ids = NODE_TYPES.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+\.[a-z_]+$/);
    const families = new Set(ids.map(familyOf));
    for (const family of REQUIRED_FAMILIES) expect(families.has(family), family).toBe(true);
    for (const id of [
      "constant.json",
      "text.template",
      "math.expression",
      "json.set",
      "list.map_template",
      "code.run",
    ]) {
      expect(ids).toContain(id);
    }
  });

  it("has exactly one executor per node type", () => {
    expect([...EXECUTORS.keys()].sort()).toEqual(
      NODE_TYPES.filter((t) => !t.note)
        .map((t) => t.id)
        .sort(),
    );
  });

  it.each(NODE_TYPES.map((t) => [t.id, t] as const))("%s: handles are typed, named once, defaults fit", (_id, type) => {
    expect(type.title.length).toBeGreaterThan(0);
    expect(type.description.length).toBeGreaterThan(10);
    const names = type.inputs.map((i) => i.name);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(type.outputs.map((o) => o.name)).size).toBe(type.outputs.length);
    for (const input of [...type.inputs, ...type.outputs]) expect(HANDLE_TYPES).toContain(input.type);
    for (const input of type.inputs) {
      if (input.default !== undefined) {
        expect(matchesType(input.type, input.default), `${input.name} default`).toBe(true);
        expect(input.required, `${input.name} is required yet has a default`).toBeFalsy();
      }
    }
  });

  it("declares effects whose categories are the capability table's", () => {
    const declared = NODE_TYPES.flatMap((t) => t.effects ?? []);
    expect(declared.length).toBeGreaterThan(0);
    for (const effect of declared) expect(findSpec(effect.capability)?.category).toBe(effect.category);
  });
});

describe("node-type helpers", () => {
  it("connects equal types, anything into any/json, any/json out into anything, and nothing else", () => {
    expect(canConnect("string", "string")).toBe(true);
    expect(canConnect("number", "any")).toBe(true);
    expect(canConnect("list", "json")).toBe(true);
    expect(canConnect("json", "list")).toBe(true);
    expect(canConnect("any", "number")).toBe(true);
    expect(canConnect("number", "string")).toBe(false);
    expect(canConnect("list", "string")).toBe(false);
    expect(canConnect("boolean", "number")).toBe(false);
  });

  it("connects an asset output only to inputs that take an asset, and says why otherwise", () => {
    expect(canConnect("image", "image")).toBe(true);
    expect(canConnect("image", "file")).toBe(true);
    expect(canConnect("image", "any")).toBe(true);
    expect(canConnect("file", "image")).toBe(true);
    expect(canConnect("image", "json")).toBe(false);
    expect(canConnect("image", "string")).toBe(false);
    expect(canConnect("image", "audio")).toBe(false);
    expect(canConnect("number", "image")).toBe(false);
    expect(canConnect("json", "image")).toBe(true);
    expect(connectionProblem("image", "number")).toBe(
      "An image output connects only to an input that takes an image, a file or any value; this input takes a number.",
    );
    expect(connectionProblem("number", "string")).toMatch(/^A number output does not fit an input that takes a string/);
    expect(connectionProblem("number", "any")).toBeUndefined();
    const resize = NODE_TYPES.find((t) => t.id === "image.resize");
    expect(resize?.inputs.find((i) => i.name === "image")?.type).toBe("image");
    expect(resize?.outputs.find((o) => o.name === "output")?.type).toBe("image");
  });

  it("checks values against handle types; numbers must be finite", () => {
    expect(matchesType("number", 1.5)).toBe(true);
    expect(matchesType("number", Number.NaN)).toBe(false);
    expect(matchesType("number", "1")).toBe(false);
    expect(matchesType("list", [])).toBe(true);
    expect(matchesType("list", {})).toBe(false);
    expect(matchesType("json", null)).toBe(true);
    expect(matchesType("any", undefined)).toBe(false);
    expect(matchesType("image", new AssetRef("ast_1"))).toBe(true);
    expect(matchesType("image", "ast_1")).toBe(true);
    expect(matchesType("file", new Uint8Array([0, 1, 2]))).toBe(true);
    expect(matchesType("image", 3)).toBe(false);
    // Data that merely looks like a reference is not one.
    expect(matchesType("image", { $asset: "ast_1" })).toBe(false);
  });

  it("reads template slots and the inputs they name", () => {
    expect(templateSlots("Hi {{ name }}, {{user.city}} {{items[0]}} {{name}}")).toEqual([
      { name: "name", path: "", raw: "{{ name }}" },
      { name: "user", path: ".city", raw: "{{user.city}}" },
      { name: "items", path: "[0]", raw: "{{items[0]}}" },
      { name: "name", path: "", raw: "{{name}}" },
    ]);
    expect(templateInputs("{{a}} {{b.c}} {{a}} {{ not a slot }}")).toEqual(["a", "b"]);
  });

  it("lists the non-read categories a set of node types will use, for the approval prompt", () => {
    expect(describeEffects(["text.template", "math.add"])).toBe("It uses no write, execute or external capabilities.");
    expect(describeEffects(["memory.search"])).toBe("It uses no write, execute or external capabilities.");
    const line = describeEffects(["memory.save", "memory.search", "text.concat"]);
    expect(line).toContain("write (save_memory, from memory.save)");
    expect(line).not.toContain("search_memories");
    expect(effectsOf(["memory.save", "memory.save"])).toEqual([
      { capability: "save_memory", category: "write", node_types: ["memory.save"] },
    ]);
  });
});
