/**
 * A workflow as a file: what `Export` downloads (the graph on screen, draft and all, with its name and
 * description) and what `Import` reads back as a new workflow. Import also takes a bare graph
 * (`{nodes, edges}`, as `workflows.get` or `ui.getGraph` give one), named after its file. A file that
 * is not JSON, not a graph, structurally broken (a duplicate id, an edge to a missing node, a cycle) or
 * names a node type this server does not have is refused with a message saying what and where.
 */
import { Graph, validateGraph, type Workflow } from "../../../shared/graph/document.ts";
import { findNodeType } from "../../../shared/graph/node-types.ts";
import type { Fragment } from "../../../shared/graph/ops.ts";
import { safeFileName } from "../download.ts";

/** Marks an exported file (a reader of the file sees what it is). */
export const WORKFLOW_FILE_FORMAT = "nodetool-sandbox/workflow@1";
/** Largest file Import reads: far above any graph the editor can show. */
export const WORKFLOW_FILE_MAX_BYTES = 5 * 1024 * 1024;

export interface ImportedWorkflow {
  name: string;
  description: string;
  graph: Graph;
}

/** The download of `workflow` with `graph` (the editor's draft) as its graph. */
export function workflowFile(workflow: Pick<Workflow, "name" | "description">, graph: Graph) {
  const body = { format: WORKFLOW_FILE_FORMAT, name: workflow.name, description: workflow.description, graph };
  return { fileName: safeFileName(workflow.name, "workflow", "json"), text: `${JSON.stringify(body, null, 2)}\n` };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Whether a file dropped on the editor is meant as a workflow, to import: JSON (as Export writes) that
 * holds an object with a graph or nodes, or that does not parse (its import says what is wrong). Other
 * JSON (data: a list, a record, a file too large to be a workflow) is not: it becomes an asset.
 */
export async function holdsWorkflow(file: Pick<File, "name" | "type" | "size" | "text">): Promise<boolean> {
  if (!(file.type === "application/json" || /\.json$/i.test(file.name))) return false;
  if (file.size > WORKFLOW_FILE_MAX_BYTES) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await file.text());
  } catch {
    return true;
  }
  return isRecord(parsed) && ("graph" in parsed || "nodes" in parsed);
}

/** Reads a file Export wrote, or a bare graph; an error says what is wrong, naming the file. */
export function readWorkflowFile(
  text: string,
  fileName: string,
  verb = "imported",
): ImportedWorkflow | { error: string } {
  const refuse = (why: string) => ({ error: `${fileName} cannot be ${verb}: ${why}` });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return refuse(`it is not JSON (${err instanceof Error ? err.message : String(err)}).`);
  }
  if (!isRecord(parsed)) return refuse("it holds no workflow (an object with a graph, or nodes and edges).");
  const bare = !("graph" in parsed);
  if (bare && !Array.isArray(parsed.nodes)) {
    return refuse("it holds no workflow (an object with a graph, or nodes and edges).");
  }
  const read = Graph.safeParse(bare ? parsed : parsed.graph);
  if (!read.success) {
    // Where each complaint is, from the top of the file.
    const lines = read.error.issues.map(({ path, message }) => {
      const where = [...(bare ? [] : ["graph"]), ...path].join(".");
      return `${where || "the file"}: ${message}`;
    });
    return refuse(`${lines.slice(0, 3).join("; ")}.`);
  }
  const graph = read.data;
  const problems = validateGraph(graph).problems.map((problem) => problem.message);
  const unknown = graph.nodes.filter((node) => !findNodeType(node.type));
  problems.push(...unknown.map((node) => `node "${node.id}" has type "${node.type}", which is not a node type here`));
  if (problems.length > 0) {
    const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : "";
    return refuse(`${problems.slice(0, 3).join("; ")}${more}.`);
  }
  const named = !bare && typeof parsed.name === "string" && parsed.name.trim() !== "";
  const name = named ? (parsed.name as string) : fileName.replace(/\.json$/i, "").trim() || "Imported workflow";
  const description = !bare && typeof parsed.description === "string" ? parsed.description : "";
  return { name: name.slice(0, 200), description, graph };
}

/**
 * Nodes on the system clipboard, as the editor's Copy writes them: a bare graph (`{nodes, edges}`), so
 * they paste into another tab or workflow, and the text is itself a file `Import` opens.
 */
export function clipboardText(fragment: Fragment): string {
  return JSON.stringify({ nodes: fragment.nodes, edges: fragment.edges });
}

/**
 * What a paste on the canvas holds: nodes (a copy from any tab, a graph or a workflow file's text), or
 * why they cannot be pasted; undefined for anything else (plain text: not meant for the canvas).
 */
export function readClipboard(text: string): Fragment | { error: string } | undefined {
  if (text.length > WORKFLOW_FILE_MAX_BYTES) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || !(Array.isArray(parsed.nodes) || isRecord(parsed.graph))) return undefined;
  const read = readWorkflowFile(text, "What you pasted", "pasted");
  return "error" in read ? read : { nodes: read.graph.nodes, edges: read.graph.edges };
}
