/**
 * The editor's copy and paste of nodes. A copy is the page's (the store's clipboard, which `Paste here`
 * and an action's `ui.paste` use) and the system clipboard's, as a graph's text (workflow-file.ts), so
 * it pastes in another tab; a paste of such text (or of a workflow file's) makes it this page's copy.
 * Each paste of the same copy lands a step further; the pasted nodes become the selection.
 */
import { useRef } from "react";
import type { EditorController } from "./controller.ts";
import { clipboardText, readClipboard } from "./workflow-file.ts";

export interface NodeClipboardOptions {
  controller: EditorController;
  /** The nodes selected now (what Copy and Duplicate take by default). */
  selected: readonly string[];
  /** Makes these nodes the selection (the pasted ones). */
  select(ids: string[]): void;
  problem(message: string | undefined): void;
}

export function useNodeClipboard({ controller, selected, select, problem }: NodeClipboardOptions) {
  const pastes = useRef(0);
  /** The copy as the system clipboard has it (a paste that brings the same text is the same copy). */
  const copiedText = useRef<string | undefined>(undefined);
  /** Copies the nodes; answers them as text for the system clipboard (undefined: none to copy). */
  const copy = (ids: readonly string[] = selected): string | undefined => {
    if (ids.length === 0) return undefined;
    pastes.current = 0;
    problem(controller.userEdit("ui_copy", { node_ids: ids }));
    const fragment = controller.store.getSnapshot().clipboard;
    copiedText.current = fragment ? clipboardText(fragment) : undefined;
    return copiedText.current;
  };
  /**
   * A paste on the canvas: nodes on the system clipboard (copied in any tab, or a graph's text) become
   * this page's copy and are pasted; other text pastes this page's own copy, if any.
   */
  const pasteText = (text: string) => {
    const read = readClipboard(text);
    if (read && "error" in read) return problem(read.error);
    if (read && text !== copiedText.current) {
      controller.store.copied(read);
      copiedText.current = text;
      pastes.current = 0;
    }
    paste();
  };
  /** Pastes the copy a step further each time, or `at` a point (the context menu's `Paste here`). */
  const paste = (at?: { x: number; y: number }) => {
    const fragment = controller.store.getSnapshot().clipboard;
    if (!fragment || fragment.nodes.length === 0 || !controller.store.getSnapshot().workflow) return;
    const step = 40 * ++pastes.current;
    const left = Math.min(...fragment.nodes.map((n) => n.position.x));
    const top = Math.min(...fragment.nodes.map((n) => n.position.y));
    const offset = at ? { x: Math.round(at.x - left), y: Math.round(at.y - top) } : { x: step, y: step };
    const before = new Set(controller.store.getSnapshot().graph.nodes.map((n) => n.id));
    problem(controller.userEdit("ui_paste", { fragment, offset }));
    select(
      controller.store
        .getSnapshot()
        .graph.nodes.filter((n) => !before.has(n.id))
        .map((n) => n.id),
    );
  };

  const duplicate = (ids: readonly string[] = selected) => {
    copy(ids);
    paste();
  };

  return { copy, paste, pasteText, duplicate };
}
