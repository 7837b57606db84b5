/**
 * Files dragged onto the page: where nothing takes them (the header, the tabs, the inspector's text
 * fields), the browser would open the file in place of the app; here such a drop is refused (no-drop
 * cursor) instead. The editor (a workflow file) and the agent panel (attachments) take theirs with
 * `takeDroppedFiles`, whose handlers run before these; a file input takes its own, and the Action
 * editor (CodeMirror) inserts a dropped file's text.
 */
import type { DragEvent } from "react";

/** Whether dropped files are the target's own business (a file input, the code editor). */
function takesFiles(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('input[type="file"], .cm-editor') !== null;
}

/** An element's handlers that take the files dropped on it (a copy cursor), leaving its file inputs theirs. */
export function takeDroppedFiles(onFiles: (files: File[], at: { clientX: number; clientY: number }) => void) {
  return {
    onDragOver(event: DragEvent) {
      if (!event.dataTransfer.types.includes("Files") || takesFiles(event.target)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
    },
    onDrop(event: DragEvent) {
      const files = [...event.dataTransfer.files];
      if (files.length === 0 || takesFiles(event.target)) return;
      event.preventDefault();
      onFiles(files, { clientX: event.clientX, clientY: event.clientY });
    },
  };
}

export function refuseStrayFileDrops(win: Window): void {
  win.addEventListener("dragover", (event) => {
    if (!event.dataTransfer?.types.includes("Files") || takesFiles(event.target) || event.defaultPrevented) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "none";
  });
  win.addEventListener("drop", (event) => {
    if (event.dataTransfer?.types.includes("Files") && !takesFiles(event.target)) event.preventDefault();
  });
}
