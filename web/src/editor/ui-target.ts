/**
 * The app page's `UiTarget`: authorised `ui` calls applied to the editor open in this page. Document
 * operations go to the editor's store (visible at once, undoable, a draft until Save; all the edits of
 * one action are one undo step, so an action's `commit()` undoes at once); `ui_open_workflow` opens a
 * stored workflow; `ui_switch_tab` moves focus.
 *
 * An action that builds a graph from nothing without saying where its nodes go (`ui.addNode` with no
 * position) has it laid out left to right as it goes, as `Auto layout` would, within the action's undo
 * step: otherwise its nodes stand in one row, and edges run behind the nodes between. Nodes the
 * person or an earlier action placed are never moved, nor the action's own once anyone moves one.
 */
import { type GraphNode, samePosition } from "../../../shared/graph/document.ts";
import { isDocumentOp } from "../../../shared/graph/ops.ts";
import { failure } from "../../../shared/protocol/errors.ts";
import type { Answer, UiTarget } from "../ui-client.ts";
import type { EditorController } from "./controller.ts";
import { autoLayout } from "./layout.ts";

type Position = GraphNode["position"];

export function editorUiTarget(editor: EditorController, focusTab: (tab: "editor" | "panel") => void): UiTarget {
  /** The nodes the newest action added without a position, in the workflow it added them to. */
  let unplaced: { runId: string; workflowId: string; ids: Set<string>; laid: Map<string, Position> } | undefined;
  /**
   * Lays the graph out while every node in it is one of those; once one has been moved by anyone else
   * (the action's own `ui.moveNode`, the person's drag, an undo), never again in this action.
   */
  const place = (runId: string, group: string) => {
    const { graph, workflow } = editor.store.getSnapshot();
    const mine = unplaced;
    if (mine?.runId !== runId || mine.workflowId !== workflow?.id) return;
    const moved = graph.nodes.some((node) => {
      const laid = mine.laid.get(node.id);
      return laid !== undefined && !samePosition(laid, node.position);
    });
    if (moved) mine.ids.clear();
    if (!graph.nodes.every((node) => mine.ids.has(node.id))) return;
    for (const move of autoLayout(graph, new Map()))
      editor.store.apply("ui_move_node", move, { group, byAction: true });
    mine.laid = new Map(editor.store.getSnapshot().graph.nodes.map((node) => [node.id, node.position]));
  };
  return {
    openWorkflowId: () => editor.store.getSnapshot().workflow?.id,
    async runnable() {
      const snapshot = editor.store.getSnapshot();
      return snapshot.workflow ? { graph: snapshot.graph, workflowId: snapshot.workflow.id } : undefined;
    },
    async apply(runId, name, args): Promise<Answer> {
      if (isDocumentOp(name)) {
        if (!editor.store.getSnapshot().workflow) {
          return {
            ok: false,
            error: failure(
              "capability_unavailable",
              `${name}: no workflow is open in the editor. Open one (ui.openWorkflow) or pass workflow_id.`,
            ),
          };
        }
        const group = `action:${runId}`;
        const result = editor.store.apply(name, args, { group, byAction: true });
        if (!result.ok) return { ok: false, error: failure("capability_failed", result.message) };
        const workflowId = editor.store.getSnapshot().workflow?.id ?? "";
        if (name === "ui_add_node" && args.position === undefined) {
          if (unplaced?.runId !== runId || unplaced.workflowId !== workflowId) {
            unplaced = { runId, workflowId, ids: new Set(), laid: new Map() };
          }
          unplaced.ids.add(String((result.value as { node_id: string }).node_id));
        }
        place(runId, group);
        if (name === "ui_get_graph") {
          // What the person has selected, as they see it: the ids still on the canvas, in its order.
          const chosen = new Set(editor.selection);
          const selected = editor.store
            .getSnapshot()
            .graph.nodes.filter((node) => chosen.has(node.id))
            .map((node) => node.id);
          return { ok: true, value: { ...(result.value as object), selected } };
        }
        return { ok: true, value: result.value };
      }
      switch (name) {
        case "ui_open_workflow": {
          const problem = await editor.open(String(args.workflow_id));
          if (problem) return { ok: false, error: failure("capability_failed", problem) };
          const opened = editor.store.getSnapshot();
          return {
            ok: true,
            value: { workflow_id: opened.workflow?.id, name: opened.workflow?.name, version: opened.workflow?.version },
          };
        }
        case "ui_switch_tab":
          focusTab(args.tab === "panel" ? "panel" : "editor");
          return { ok: true, value: { tab: args.tab } };
        default:
          return { ok: false, error: failure("capability_unavailable", `${name} is not served by this page.`) };
      }
    },
  };
}
