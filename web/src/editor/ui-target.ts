/**
 * The app page's `UiTarget`: authorised `ui` calls applied to the editor open in this page. Document
 * operations go to the editor's store (visible at once, undoable, a draft until Save; all the edits of
 * one action are one undo step, so an action's `commit()` undoes at once); `ui_open_workflow` opens a
 * stored workflow; `ui_switch_tab` moves focus.
 */
import { isDocumentOp } from "../../../shared/graph/ops.ts";
import { failure } from "../../../shared/protocol/errors.ts";
import type { Answer, UiTarget } from "../ui-client.ts";
import type { EditorController } from "./controller.ts";

export function editorUiTarget(editor: EditorController, focusTab: (tab: "editor" | "panel") => void): UiTarget {
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
        const result = editor.store.apply(name, args, { group: `action:${runId}` });
        return result.ok
          ? { ok: true, value: result.value }
          : { ok: false, error: failure("capability_failed", result.message) };
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
