/**
 * The tab's title, from its parts: what the page shows (the open workflow's name, set by
 * workflow-url.ts) and, while approvals wait, how many, first: a person working in another tab sees
 * that the agent is waiting on them.
 */
const APP_TITLE = "nodetool sandbox";

let shown: string | undefined;
let waiting = 0;

function render(): void {
  const base = shown ? `${shown} · ${APP_TITLE}` : APP_TITLE;
  const title = waiting > 0 ? `(${waiting}) Approval needed · ${base}` : base;
  if (document.title !== title) document.title = title;
}

/** The open workflow's name (undefined: none open). */
export function titleShows(name: string | undefined): void {
  shown = name;
  render();
}

/** How many approvals wait on the person. */
export function titleWaiting(count: number): void {
  waiting = count;
  render();
}
