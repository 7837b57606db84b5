/**
 * Workflows to start from, offered on the editor's start page (WorkflowStart.tsx): small, runnable
 * with their inputs' defaults, each showing a kind of node (a run input and a template, with a note
 * saying how to run it; text and lists; arithmetic on an input; rows of a CSV table). Opened as a new
 * workflow of the person's own.
 */
import type { Graph } from "../../../shared/graph/document.ts";

export interface WorkflowExample {
  name: string;
  description: string;
  graph: Graph;
}

const at = (x: number, y: number) => ({ x, y });
/** A connection from `source`'s output to `target`'s `input`. */
const wire = (id: string, source: string, target: string, input: string) => ({
  id,
  source,
  sourceHandle: "output",
  target,
  targetHandle: input,
});

export const WORKFLOW_EXAMPLES: readonly WorkflowExample[] = [
  {
    name: "Greeting",
    description: "Greets a name given when it runs: a run input fills a text template.",
    graph: {
      nodes: [
        {
          id: "name",
          type: "workflow.input",
          title: "Name",
          data: { name: "name", default: "world" },
          position: at(0, 0),
        },
        { id: "greet", type: "text.template", data: { template: "Hello, {{name}}!" }, position: at(280, 0) },
        { id: "greeting", type: "workflow.output", data: { name: "greeting" }, position: at(560, 0) },
        {
          id: "how",
          type: "canvas.note",
          data: {
            text: "Type a name in Inputs beside Run workflow, then run it: the output greets that name (left empty, the world).",
          },
          position: at(0, 160),
        },
      ],
      edges: [wire("e1", "name", "greet", "name"), wire("e2", "greet", "greeting", "value")],
    },
  },
  {
    name: "Word count",
    description: "Splits a text into words and counts them.",
    graph: {
      nodes: [
        {
          id: "text",
          type: "workflow.input",
          title: "Text",
          data: { name: "text", default: "the quick brown fox jumps over the lazy dog" },
          position: at(0, 0),
        },
        { id: "split", type: "text.split", data: { separator: " ", trim: true }, position: at(280, 0) },
        { id: "count", type: "list.length", data: {}, position: at(560, 0) },
        { id: "words", type: "workflow.output", data: { name: "words" }, position: at(840, 0) },
      ],
      edges: [
        wire("e1", "text", "split", "text"),
        wire("e2", "split", "count", "list"),
        wire("e3", "count", "words", "value"),
      ],
    },
  },
  {
    name: "Circle area",
    description: "Computes the area of a circle from its radius with an expression.",
    graph: {
      nodes: [
        {
          id: "radius",
          type: "workflow.input",
          title: "Radius",
          data: { name: "radius", default: 2 },
          position: at(0, 0),
        },
        { id: "area", type: "math.expression", data: { expression: "pi * r ^ 2" }, position: at(280, 0) },
        { id: "result", type: "workflow.output", data: { name: "area" }, position: at(560, 0) },
      ],
      edges: [wire("e1", "radius", "area", "r"), wire("e2", "area", "result", "value")],
    },
  },
  {
    name: "Table totals",
    description: "Reads a CSV table, keeps the drinks and totals their price: rows with no code.",
    graph: {
      nodes: [
        {
          id: "table",
          type: "constant.string",
          title: "Table",
          data: { value: "item,kind,price\ntea,drink,3\ncake,food,4.5\ncoffee,drink,2.5\n" },
          position: at(0, 0),
        },
        { id: "rows", type: "csv.parse", data: {}, position: at(280, 0) },
        {
          id: "drinks",
          type: "table.filter",
          data: { column: "kind", operator: "==", value: "drink" },
          position: at(560, 0),
        },
        { id: "totals", type: "table.stats", data: { column: "price" }, position: at(840, 0) },
        { id: "kept", type: "workflow.output", data: { name: "drinks" }, position: at(1120, 0) },
        { id: "total", type: "workflow.output", data: { name: "total" }, position: at(1120, 160) },
        {
          id: "how",
          type: "canvas.note",
          data: {
            text: "Change the table in the Inspector (select Table), or drop a CSV file on the canvas and connect its Load asset to Parse CSV instead.",
          },
          position: at(0, 200),
        },
      ],
      edges: [
        wire("e1", "table", "rows", "text"),
        wire("e2", "rows", "drinks", "rows"),
        wire("e3", "drinks", "totals", "rows"),
        wire("e4", "drinks", "kept", "value"),
        { id: "e5", source: "totals", sourceHandle: "sum", target: "total", targetHandle: "value" },
      ],
    },
  },
];
