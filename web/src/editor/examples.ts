/**
 * Workflows to start from, offered on the editor's start page (WorkflowStart.tsx): small, runnable
 * with their inputs' defaults, each showing a kind of node (a run input and a template, text and
 * lists, arithmetic on an input). Opened as a new workflow of the person's own.
 */
import type { Graph } from "../../../shared/graph/document.ts";

export interface WorkflowExample {
  name: string;
  description: string;
  graph: Graph;
}

const at = (x: number, y: number) => ({ x, y });

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
      ],
      edges: [
        { id: "e1", source: "name", sourceHandle: "output", target: "greet", targetHandle: "name" },
        { id: "e2", source: "greet", sourceHandle: "output", target: "greeting", targetHandle: "value" },
      ],
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
        { id: "e1", source: "text", sourceHandle: "output", target: "split", targetHandle: "text" },
        { id: "e2", source: "split", sourceHandle: "output", target: "count", targetHandle: "list" },
        { id: "e3", source: "count", sourceHandle: "output", target: "words", targetHandle: "value" },
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
      edges: [
        { id: "e1", source: "radius", sourceHandle: "output", target: "area", targetHandle: "r" },
        { id: "e2", source: "area", sourceHandle: "output", target: "result", targetHandle: "value" },
      ],
    },
  },
];
