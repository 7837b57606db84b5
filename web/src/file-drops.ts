/**
 * Files dragged onto the page: where nothing takes them (the header, the tabs, the Action editor), the
 * browser would open the file in place of the app; here such a drop is refused (no-drop cursor) instead.
 * The editor (a workflow file) and the agent panel (attachments) take theirs in their own handlers,
 * which run before these; a file input takes its own.
 */

/** Whether an event's target is a file input (or inside one), which takes dropped files itself. */
export function onFileInput(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('input[type="file"]') !== null;
}

export function refuseStrayFileDrops(win: Window): void {
  win.addEventListener("dragover", (event) => {
    if (!event.dataTransfer?.types.includes("Files") || onFileInput(event.target) || event.defaultPrevented) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "none";
  });
  win.addEventListener("drop", (event) => {
    if (event.dataTransfer?.types.includes("Files") && !onFileInput(event.target)) event.preventDefault();
  });
}
