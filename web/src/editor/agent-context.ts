/**
 * What the agent is told of the editor with each message the person sends from this page: the open
 * workflow (its name, id, version, whether it has unsaved changes, its size) and the selected nodes,
 * so "this workflow" and "this node" need no `ui.getGraph` first. Names are quoted and cut short
 * (they are the person's or an agent's text, read as data).
 */
import { nodeLabel } from "../../../shared/graph/node-types.ts";
import { plural } from "../../../shared/protocol/durations.ts";
import type { EditorController } from "./controller.ts";

const NAME_MAX = 80;
const SELECTED_MAX = 10;

const quoted = (text: string) => JSON.stringify(text.length > NAME_MAX ? `${text.slice(0, NAME_MAX - 1)}…` : text);

export function editorContext(controller: Pick<EditorController, "store" | "selection">): string {
  const { workflow, graph, dirty } = controller.store.getSnapshot();
  if (!workflow) return "The editor has no workflow open.";
  const open =
    `The editor has the workflow ${quoted(workflow.name)} (${workflow.id}) open: version ${workflow.version}` +
    `${dirty ? " with unsaved changes" : ""}, ${plural(graph.nodes.length, "node")}, ` +
    `${plural(graph.edges.length, "connection")}.`;
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const selected = controller.selection.flatMap((id) => {
    const node = byId.get(id);
    return node ? [`${node.id} (${quoted(nodeLabel(node))})`] : [];
  });
  if (selected.length === 0) return `${open} No node is selected.`;
  const more = selected.length > SELECTED_MAX ? ` and ${selected.length - SELECTED_MAX} more` : "";
  return `${open} Selected: ${selected.slice(0, SELECTED_MAX).join(", ")}${more}.`;
}
