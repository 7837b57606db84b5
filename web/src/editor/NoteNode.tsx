/**
 * A note on the canvas: text for people, drawn as a sticky note, with nothing to connect. It is written
 * where it is, as sticky notes are: a double-click on it, Enter on it (focused) or the menu's `Edit
 * text` opens its text in place; Escape or Ctrl/Cmd+Enter ends the writing (focus back on the note), as
 * a click elsewhere does. One writing is one undo step however many keys it took. The Inspector writes
 * the same text.
 */
import { createContext, type KeyboardEvent, useContext, useMemo, useRef, useState } from "react";
import type { WorkflowNodeData } from "./WorkflowNode.tsx";

export interface NoteEditing {
  /** The note being written on the canvas. */
  editing: string | undefined;
  start(id: string): void;
  write(id: string, text: string): void;
  /** The writing ends; `refocus`: focus goes back to the note (from the keyboard). */
  stop(refocus: boolean): void;
}

const NoteEditingContext = createContext<NoteEditing | undefined>(undefined);
export const NoteEditingProvider = NoteEditingContext.Provider;

/** The canvas's note writing: `edit` applies a note's text, its keystrokes grouped by `group`. */
export function useNoteEditing(edit: (id: string, text: string, group: string) => void): NoteEditing {
  const [editing, setEditing] = useState<string>();
  const group = useRef("");
  const current = useRef({ edit, editing });
  current.current = { edit, editing };
  return useMemo(
    () => ({
      editing,
      start: (id) => {
        group.current = `note:${id}:${Date.now()}`;
        setEditing(id);
      },
      write: (id, text) => current.current.edit(id, text, group.current),
      stop: (refocus) => {
        const id = current.current.editing;
        setEditing(undefined);
        if (refocus && id)
          document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`)?.focus();
      },
    }),
    [editing],
  );
}

/** The field as tall as its text (wrapped lines too): nothing of the note hides behind a scroll. */
function fitHeight(field: HTMLTextAreaElement): void {
  field.style.height = "auto";
  field.style.height = `${field.scrollHeight + field.offsetHeight - field.clientHeight}px`;
}

/** Focus in the text, the cursor after it, the field as tall as the text (the ref, once drawn). */
function focusAtEnd(field: HTMLTextAreaElement | null): void {
  if (!field || document.activeElement === field) return;
  fitHeight(field);
  field.focus();
  field.setSelectionRange(field.value.length, field.value.length);
}

export function NoteNode({ id, data, selected }: { id: string; data: WorkflowNodeData; selected: boolean }) {
  const notes = useContext(NoteEditingContext);
  const text = typeof data.values.text === "string" ? data.values.text : "";
  const writing = notes !== undefined && notes.editing === id;
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Escape" || (event.key === "Enter" && (event.ctrlKey || event.metaKey))) {
      event.preventDefault();
      event.stopPropagation();
      notes?.stop(true);
    }
  };
  return (
    <div className={`wf-node wf-note${selected ? " selected" : ""}${data.changed ? " changed" : ""}`}>
      {data.title ? <div className="wf-note-title">{data.title}</div> : null}
      {writing ? (
        // Not a controlled field: the canvas redraws a node a frame after its data changes, and a
        // controlled value that lags the keys would move the cursor. What is typed is the text.
        <textarea
          ref={focusAtEnd}
          aria-label="Note text"
          className="wf-note-input nodrag nowheel"
          defaultValue={text}
          rows={3}
          onChange={(event) => {
            fitHeight(event.target);
            notes.write(id, event.target.value);
          }}
          onKeyDown={onKey}
          onBlur={() => notes.stop(false)}
        />
      ) : (
        <div className={`wf-note-text${text ? "" : " empty"}`}>{text || "An empty note: double-click to write."}</div>
      )}
    </div>
  );
}
