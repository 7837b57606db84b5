/**
 * The editor's keyboard: Ctrl/Cmd+Z undo, Ctrl/Cmd+Shift+Z (or Y) redo, +S save, +K the node palette,
 * +F finds a node, +C / +V / +D copy, paste, duplicate the selected nodes, +A selects every node, +Enter
 * runs the workflow (as `Run workflow` does), Delete or Backspace removes the selection, F2 renames the selected node (its title, in the inspector), `?` lists the keys.
 * They act on the canvas (focus on the page itself or inside the editor); inside a text field or the
 * code editor, the keys are the field's own. (Delete is ours, not React Flow's: its key tracking loses
 * a press after some modifier combinations.) Copy and paste are the browser's own `copy` and `paste`
 * events (Ctrl/Cmd+C and V, or the browser's menu), so the nodes go through the system clipboard: they
 * paste into another tab, and a graph's text copied elsewhere pastes as nodes.
 */
import { useEffect, useRef } from "react";

export interface EditorKeys {
  undo(): void;
  redo(): void;
  save(): void;
  palette(): void;
  /** Opens the node finder; answers false when there is nothing to find (the browser's own find then). */
  find(): boolean;
  /** Copies the selected nodes; answers them as the clipboard's text (undefined: none selected). */
  copy(): string | undefined;
  /** Pastes what the clipboard holds (`text`: its text). */
  paste(text: string): void;
  duplicate(): void;
  selectAll(): void;
  remove(): void;
  rename(): void;
  /** `Run workflow`, as if pressed (nothing while it cannot run). */
  run(): void;
  shortcuts(): void;
}

const FIELD = "input, textarea, select, [contenteditable=''], [contenteditable='true'], .cm-editor";

export function useEditorKeys(keys: EditorKeys, scope: () => HTMLElement | null): void {
  const current = useRef(keys);
  current.current = keys;
  useEffect(() => {
    /** The event is the canvas's: not in a field, no dialog open, on the page itself or in the editor. */
    const ours = (event: Event): boolean => {
      const target = event.target instanceof HTMLElement ? event.target : document.body;
      if (target.closest(FIELD) || document.querySelector("dialog[open]")) return false;
      return target === document.body || scope()?.contains(target) === true;
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || !ours(event)) return;
      const target = event.target instanceof HTMLElement ? event.target : document.body;
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
      if (key === "f" && !event.shiftKey) {
        // Only with focus in the editor: elsewhere (the page itself after a click on the conversation's
        // text) Ctrl/Cmd+F is the browser's find.
        if (scope()?.contains(target) && k.find()) event.preventDefault();
        return;
      }
      const actions: Record<string, (() => void) | undefined> = {
        z: event.shiftKey ? k.redo : k.undo,
        y: k.redo,
        s: k.save,
        k: k.palette,
        d: k.duplicate,
        a: k.selectAll,
        enter: event.shiftKey ? undefined : k.run,
      };
      const action = actions[key];
      if (!action) return;
      event.preventDefault();
      action();
    };
    const onCopy = (event: ClipboardEvent) => {
      // Text the person selected (a node's label, a result) is copied as text, as anywhere else.
      if (!ours(event) || document.getSelection()?.isCollapsed === false) return;
      const text = current.current.copy();
      // No node selected: the browser copies what it would (a text selection).
      if (text === undefined || !event.clipboardData) return;
      event.clipboardData.setData("text/plain", text);
      event.preventDefault();
    };
    const onPaste = (event: ClipboardEvent) => {
      if (!ours(event)) return;
      const text = event.clipboardData?.getData("text/plain") ?? "";
      // A file or an image on the clipboard is nothing the canvas takes (nor the page's own copy).
      if (text === "" && (event.clipboardData?.files.length ?? 0) > 0) return;
      event.preventDefault();
      current.current.paste(text);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("copy", onCopy);
    document.addEventListener("paste", onPaste);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("copy", onCopy);
      document.removeEventListener("paste", onPaste);
    };
  }, [scope]);
}
