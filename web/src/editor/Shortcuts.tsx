/**
 * `Keyboard shortcuts`: the editor's keys in one modal list, opened with `?` on the canvas or the `?`
 * button among the canvas controls. Close or Escape closes it, and focus goes back where it was.
 */
import { useEffect, useId, useRef } from "react";

/** Keys, then what they do; the same keys keys.ts, the palette, the canvas and the panel answer. */
export const SHORTCUTS: readonly (readonly [string, string])[] = [
  ["Ctrl/Cmd+K, or double-click the canvas", "Add a node (the palette: type to search, Enter adds)"],
  ["Ctrl/Cmd+F", "Find a node on the canvas (by name, type or id; Enter shows it)"],
  ["Ctrl/Cmd+Z", "Undo"],
  ["Ctrl/Cmd+Shift+Z or Ctrl/Cmd+Y", "Redo"],
  ["Ctrl/Cmd+S", "Save"],
  ["Ctrl/Cmd+C, Ctrl/Cmd+V, Ctrl/Cmd+D", "Copy, paste, duplicate the selection (pastes into other tabs too)"],
  ["Ctrl/Cmd+A", "Select every node"],
  ["F2", "Rename the selected node (Enter or Escape goes back to it)"],
  ["Enter", "Write the focused note in place (Escape or Ctrl/Cmd+Enter ends)"],
  ["Delete or Backspace", "Remove the selection"],
  ["Right-click, or the Menu key or Shift+F10", "The menu of a node, a connection or the canvas"],
  ["Shift+drag, or Ctrl/Cmd+click", "Select several nodes"],
  ["Tab, then Enter", "Reach a node, select it"],
  ["Arrow keys", "Move the selected node"],
  ["Ctrl/Cmd+Enter", "Run the workflow (on the canvas); run the action (in the Action editor)"],
  ["Enter, Shift+Enter", "Send, new line (in Message)"],
  ["?", "This list"],
];

export function ShortcutsDialog({ onClose }: { onClose(): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  const id = useId();
  // Closed before the owner hears of it: while modal, the page outside it cannot take focus back.
  const finish = () => {
    ref.current?.close();
    onClose();
  };
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    close.current?.focus();
  }, []);
  return (
    <dialog
      ref={ref}
      className="shortcuts"
      aria-labelledby={`${id}-title`}
      onCancel={(event) => {
        event.preventDefault();
        finish();
      }}
    >
      <h2 id={`${id}-title`}>Keyboard shortcuts</h2>
      <table>
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row" className="keys">
                <kbd>{keys}</kbd>
              </th>
              <td className="what">{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="buttons">
        <button type="button" ref={close} onClick={finish}>
          Close
        </button>
      </div>
    </dialog>
  );
}
