/**
 * Graph validation before anything runs, and the plan the scheduler walks. A graph runs only when it
 * has no problem: unknown node types, edges between handles that do not exist or whose types cannot
 * meet, two edges into one input, required inputs neither connected nor set, slots or variables with
 * no value, cycles, an edge to a note. Notes are left out of the plan: they never run. Each problem
 * names the node (and edge) and what to change; a node's own problems
 * read as problems.ts words them (its title, its field's label) and carry the field's path.
 */
import { closestNames } from "../../shared/capabilities/table.ts";
import { type Graph, type GraphNode, validateGraph } from "../../shared/graph/document.ts";
import {
  canConnect,
  findInput,
  findNodeType,
  type InputSpec,
  isNote,
  type NodeType,
  nodeTypeIds,
  templateInputs,
} from "../../shared/graph/node-types.ts";
import { EXECUTORS } from "./executors/index.ts";
import { expressionVariables, parseExpression } from "./expression.ts";
import { isInputName, literalInputs } from "./inputs.ts";
import { distinctLabel, fieldPath, inputProblemText, unfilledText } from "./problems.ts";
import type { Executor } from "./types.ts";

export interface GraphIssue {
  node_id?: string;
  edge_id?: string;
  /** Where the problem is, for scripts and agents: `nodes.<id>.data.<input>`. */
  path?: string;
  /** For the person at the editor (and the model): the node's title and the field's label. */
  message: string;
}

/** A problem as a failure's `issues` lists it, for scripts and agents: `nodes.<id>.data.<input>: <message>`. */
export function issueOf(problem: GraphIssue): string {
  return problem.path ? `${problem.path}: ${problem.message}` : problem.message;
}

export interface Wire {
  readonly input: string;
  readonly source: number;
  readonly handle: string;
  /** Set when the source's type is only known at run time: the value is checked when it arrives. */
  readonly check?: Pick<InputSpec, "type" | "options" | "min" | "max">;
}

export interface PlannedNode {
  readonly index: number;
  readonly node: GraphNode;
  readonly type: NodeType;
  readonly executor: Executor;
  readonly literals: Readonly<Record<string, unknown>>;
  readonly wires: readonly Wire[];
  readonly dependents: readonly number[];
  readonly upstream: number;
}

export interface Plan {
  readonly nodes: readonly PlannedNode[];
  /** workflow.output nodes by name; empty when the graph names none. */
  readonly outputs: readonly { name: string; index: number }[];
}

export type PlanResult = { ok: true; plan: Plan } | { ok: false; problems: GraphIssue[] };

export function planGraph(full: Graph): PlanResult {
  const structural = validateGraph(full);
  if (!structural.valid) return { ok: false, problems: structural.problems.map((p) => ({ message: p.message })) };
  // Notes are for people: they never run, and nothing connects to them.
  const notes = new Set(full.nodes.filter((node) => isNote(node.type)).map((node) => node.id));
  const touching = full.edges.filter((edge) => notes.has(edge.source) || notes.has(edge.target));
  if (touching.length > 0) {
    const problems = touching.map((edge) => ({
      edge_id: edge.id,
      message: `edge "${edge.id}": ${notes.has(edge.source) ? edge.source : edge.target} is a note, which has no connections; remove the edge.`,
    }));
    return { ok: false, problems };
  }
  const graph = notes.size > 0 ? { ...full, nodes: full.nodes.filter((node) => !notes.has(node.id)) } : full;
  const problems: GraphIssue[] = [];
  const index = new Map(graph.nodes.map((node, i) => [node.id, i]));
  const types: (NodeType | undefined)[] = graph.nodes.map((node) => {
    const type = findNodeType(node.type);
    const executor = EXECUTORS.get(node.type);
    if (!type || !executor) {
      const near = closestNames(node.type, nodeTypeIds());
      const hint = near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "";
      problems.push({
        node_id: node.id,
        message: `node "${node.id}" has unknown type "${node.type}".${hint} nodes.list_nodes() lists the types.`,
      });
    }
    return type;
  });

  const wires: Wire[][] = graph.nodes.map(() => []);
  const upstream: Set<number>[] = graph.nodes.map(() => new Set());
  const dependents: Set<number>[] = graph.nodes.map(() => new Set());
  for (const edge of graph.edges) {
    const from = index.get(edge.source) as number;
    const to = index.get(edge.target) as number;
    const sourceType = types[from];
    const targetType = types[to];
    if (!sourceType || !targetType) continue;
    const issue = (message: string) => problems.push({ node_id: edge.target, edge_id: edge.id, message });
    const output = sourceType.outputs.find((o) => o.name === edge.sourceHandle);
    if (!output) {
      const names = sourceType.outputs.map((o) => `"${o.name}"`).join(", ") || "none";
      issue(
        `edge "${edge.id}": node "${edge.source}" (${sourceType.id}) has no output "${edge.sourceHandle}"; its outputs: ${names}.`,
      );
      continue;
    }
    const declared = findInput(targetType, edge.targetHandle);
    const target: Pick<InputSpec, "type" | "options" | "min" | "max"> | undefined =
      declared && declared.handle !== false
        ? declared
        : !declared && isInputName(edge.targetHandle)
          ? targetType.dynamicInputs
          : undefined;
    if (!target) {
      const names = targetType.inputs.filter((i) => i.handle !== false).map((i) => `"${i.name}"`);
      issue(
        `edge "${edge.id}": node "${edge.target}" (${targetType.id}) has no input "${edge.targetHandle}" to connect; its inputs: ${names.join(", ") || "none"}.`,
      );
      continue;
    }
    if (wires[to]?.some((w) => w.input === edge.targetHandle)) {
      issue(
        `edge "${edge.id}": input "${edge.targetHandle}" of node "${edge.target}" already has an edge; an input takes one.`,
      );
      continue;
    }
    if (!canConnect(output.type, target.type)) {
      issue(
        `edge "${edge.id}": output "${output.name}" of "${edge.source}" is ${output.type}, input "${edge.targetHandle}" of "${edge.target}" takes ${target.type}. Convert it first (text.template, json.stringify, json.parse).`,
      );
      continue;
    }
    const needsCheck =
      output.type !== target.type ||
      target.options !== undefined ||
      target.min !== undefined ||
      target.max !== undefined;
    wires[to]?.push({
      input: edge.targetHandle,
      source: from,
      handle: output.name,
      ...(needsCheck ? { check: target } : {}),
    });
    upstream[to]?.add(from);
    dependents[from]?.add(to);
  }

  const nodes: PlannedNode[] = [];
  const outputs: { name: string; index: number }[] = [];
  graph.nodes.forEach((node, i) => {
    const type = types[i];
    const executor = EXECUTORS.get(node.type);
    if (!type || !executor) return;
    const wired = new Set((wires[i] ?? []).map((w) => w.input));
    const literal = literalInputs(type, node.data, wired);
    const label = distinctLabel(graph, node);
    for (const problem of literal.problems) {
      problems.push({
        node_id: node.id,
        path: fieldPath(node, problem.input),
        message: `${label}: ${inputProblemText(problem)}.`,
      });
    }
    for (const message of dynamicProblems(type, literal.values, wired)) {
      problems.push({ node_id: node.id, message: `${label}: ${message}` });
    }
    if (type.id === "workflow.output" && typeof literal.values.name === "string") {
      const name = literal.values.name;
      if (outputs.some((o) => o.name === name))
        problems.push({
          node_id: node.id,
          path: fieldPath(node, "name"),
          message: `${label}: another ${type.title} node is named "${name}" too; give each its own name.`,
        });
      outputs.push({ name, index: i });
    }
    nodes.push({
      index: i,
      node,
      type,
      executor,
      literals: literal.values,
      wires: wires[i] ?? [],
      dependents: [...(dependents[i] ?? [])],
      upstream: upstream[i]?.size ?? 0,
    });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, plan: { nodes, outputs } };
}

/** Slots of a literal template, and variables of a literal expression, that would have no value. */
function dynamicProblems(type: NodeType, values: Record<string, unknown>, wired: ReadonlySet<string>): string[] {
  const has = (name: string) => wired.has(name) || values[name] !== undefined;
  if (type.id === "text.template" && typeof values.template === "string") {
    const missing = templateInputs(values.template).filter((name) => !has(name));
    if (missing.length) return [`${unfilledText("slot", missing)}.`];
  }
  if (type.id === "math.expression" && typeof values.expression === "string") {
    try {
      const missing = [...expressionVariables(parseExpression(values.expression))].filter((name) => !has(name));
      if (missing.length) return [`${unfilledText("variable", missing)}.`];
    } catch (err) {
      return [err instanceof Error ? err.message : "the expression is not valid."];
    }
  }
  return [];
}
