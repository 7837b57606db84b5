/** The start page's `Find a workflow`: every word, in the name or the description, the name's first. */
import { describe, expect, it } from "vitest";
import { findWorkflows } from "../../web/src/editor/WorkflowStart.tsx";

const list = [
  { name: "Weekly report", description: "Summarises the week" },
  { name: "Sum", description: "" },
  { name: "Invoices", description: undefined },
  { name: "Summary mail", description: "Sends the weekly summary" },
];
const names = (query: string) => findWorkflows(list, query).map((w) => w.name);

describe("findWorkflows", () => {
  it("finds by every word, case aside, the ones whose name holds them first, each group in the list's order", () => {
    expect(names("SUM")).toEqual(["Sum", "Summary mail", "Weekly report"]);
    expect(names("week sum")).toEqual(["Weekly report", "Summary mail"]);
    expect(names("invoices")).toEqual(["Invoices"]);
  });

  it("gives the whole list for no words, and nothing when a word is nowhere", () => {
    expect(names("  ")).toEqual(list.map((w) => w.name));
    expect(names("sum zebra")).toEqual([]);
  });
});
