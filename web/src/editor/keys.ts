/**
 * The editor's keyboard: Ctrl/Cmd+Z undo, Ctrl/Cmd+Shift+Z (or Y) redo, +S save, +K the node palette,
 * +C / +V / +D copy, paste, duplicate the selected nodes, +A selects every node, Delete or Backspace
 * removes the selection, F2 renames the selected node (its title, in the inspector), `?` lists the keys.
 * They act on the canvas (focus on the page itself or inside the editor); inside a text field or the
 * code editor, the keys are the field's own. (Delete is ours, not React Flow's: its key tracking loses
 * a press after some modifier combinations.)
 */
import { useEffect, useRef } from "react";

export interface EditorKeys {
  undo(): void;
  redo(): void;
  save(): void;
  palette(): void;
  copy(): void;
  paste(): void;
  duplicate(): void;
  selectAll(): void;
  remove(): void;
  rename(): void;
  shortcuts(): void;
}

const FIELD = "input, textarea, select, [contenteditable=''], [contenteditable='true'], .cm-editor";

export function useEditorKeys(keys: EditorKeys, scope: () => HTMLElement | null): void {
  const current = useRef(keys);
  current.current = keys;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey) return;
      const target = event.target instanceof HTMLElement ? event.target : document.body;
      if (target.closest(FIELD) || document.querySelector("dialog[open]")) return;
      const inside = target === document.body || scope()?.contains(target);
      if (!inside) return;
      const key = event.key.toLowerCase();
      const k = current.current;
      if (!(event.ctrlKey || event.metaKey)) {
        // Not on a button: there Delete and Backspace mean nothing, and the canvas's selection is elsewhere.
        if ((key === "delete" || key === "backspace") && !target.closest("button, a")) {
          event.preventDefault();
          k.remove();
        } else if (event.key === "F2") {
          event.preventDefault();
          k.rename();
        } else if (event.key === "?") {
          event.preventDefault();
          k.shortcuts();
        }
        return;
      }
      const actions: Record<string, (() => void) | undefined> = {
        z: event.shiftKey ? k.redo : k.undo,
        y: k.redo,
        s: k.save,
        k: k.palette,
        c: k.copy,
        v: k.paste,
        d: k.duplicate,
        a: k.selectAll,
      };
      const action = actions[key];
      if (!action) return;
      event.preventDefault();
      action();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [scope]);
}
