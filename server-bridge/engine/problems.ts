/**
 * How a node's problems read, for every node type in one place. The message is for the person at the
 * editor (and the model, which reads the same words): it names the node by the title the canvas shows
 * and the field by the label the inspector shows, never the graph's internals (`data.name`). Where the
 * problem is in the graph, for scripts and agents, travels beside it as a path (`nodes.<id>.data.<input>`),
 * which a failure lists in its `issues` as `path: message`.
 */
import type { Graph, GraphNode } from "../../shared/graph/document.ts";
import { nodeLabel } from "../../shared/graph/node-types.ts";

/** Why one input of a node has no usable value. */
export type InputProblem =
  | { kind: "required"; input: string; description: string; connectable: boolean }
  | { kind: "invalid"; input: string; detail: string };

/** What to do about a field with no value: a property is filled in; an input can also be connected. */
function remedy(connectable: boolean): string {
  return connectable ? "connect a node to it or fill it in" : "fill it in";
}

/** An input's problem as a clause about its field: `"name" (the output's name) is required; fill it in`. */
export function inputProblemText(problem: InputProblem): string {
  switch (problem.kind) {
    case "required": {
      const what = problem.description ? ` (${lowerFirst(problem.description)})` : "";
      return `"${problem.input}"${what} is required; ${remedy(problem.connectable)}`;
    }
    case "invalid":
      return `"${problem.input}" ${problem.detail}`;
    default: {
      const never: never = problem;
      return String(never);
    }
  }
}

/**
 * An input's problem when a node runs on its own (`nodes.run`), where the caller passes `inputs`, as
 * its message words it (`input "text" is required`) and as its `issues` entry (`inputs.text is required`).
 */
export function inputArgumentText(problem: InputProblem): { message: string; issue: string } {
  const why = problem.kind === "required" ? "is required" : problem.detail;
  return { message: `input "${problem.input}" ${why}`, issue: `inputs.${problem.input} ${why}` };
}

/** Inputs a template or an expression names that would have no value: `slot {{b}} has no value; ...`. */
export function unfilledText(kind: "slot" | "variable", names: readonly string[]): string {
  const listed = names.map((n) => (kind === "slot" ? `{{${n}}}` : `"${n}"`)).join(", ");
  const inputs = names.map((n) => `"${n}"`).join(", ");
  return names.length === 1
    ? `${kind} ${listed} has no value; connect a node to input ${inputs} or fill it in`
    : `${kind}s ${listed} have no value; connect nodes to inputs ${inputs} or fill them in`;
}

/**
 * The node as the person sees it (nodeLabel: its own title, else its type's), told apart by its id
 * (shown in the inspector) when another node of the graph reads the same.
 */
export function distinctLabel(graph: Graph, node: GraphNode): string {
  const label = nodeLabel(node);
  const twin = graph.nodes.some((other) => other !== node && nodeLabel(other) === label);
  return twin ? `${label} (${node.id})` : label;
}

/** Where a node's field is in the graph, for an `issues` entry. */
export function fieldPath(node: GraphNode, input: string): string {
  return `nodes.${node.id}.data.${input}`;
}

function lowerFirst(text: string): string {
  const trimmed = text.replace(/\.$/, "");
  return /^[A-Z][a-z]/.test(trimmed) ? trimmed[0]?.toLowerCase() + trimmed.slice(1) : trimmed;
}
