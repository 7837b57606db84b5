/**
 * Files dragged onto the page: where nothing takes them (the header, the tabs, the inspector's text
 * fields), the browser would open the file in place of the app; here such a drop is refused (no-drop
 * cursor) instead. The editor (a workflow file) and the agent panel (attachments) take theirs in their
 * own handlers, which run before these; a file input takes its own, and the Action editor (CodeMirror)
 * inserts a dropped file's text.
 */

/** Whether an event's target is a file input (or inside one), which takes dropped files itself. */
export function onFileInput(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('input[type="file"]') !== null;
}

/** Whether dropped files are the target's own business (a file input, the code editor). */
function takesFiles(target: EventTarget | null): boolean {
  return onFileInput(target) || (target instanceof Element && target.closest(".cm-editor") !== null);
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
