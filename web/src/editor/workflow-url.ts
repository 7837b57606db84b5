/**
 * The open workflow is in the page's address (`?workflow=<id>`) and its title, as a document app has
 * it: a reload, a bookmark or a link opens that workflow (each tab its own, where the stored
 * `open-workflow` is the same for every tab), and Back and Forward go to the workflow opened before
 * and after.
 */
import { titleShows } from "../page-title.ts";
import type { EditorStore } from "./store.ts";

const PARAM = "workflow";

/** The workflow the address names, if any. */
export function linkedWorkflow(): string | undefined {
  return new URL(window.location.href).searchParams.get(PARAM) || undefined;
}

function addressFor(id: string | undefined): string {
  const url = new URL(window.location.href);
  if (id) url.searchParams.set(PARAM, id);
  else url.searchParams.delete(PARAM);
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * Keeps the address and the title on the open workflow; Back and Forward call `open` with the id the
 * address then names (undefined: none). Answers a function that stops following.
 */
export function followOpenWorkflow(store: EditorStore, open: (id: string | undefined) => Promise<void>): () => void {
  let shown = store.getSnapshot().workflow?.id;
  const follow = () => {
    const { workflow } = store.getSnapshot();
    titleShows(workflow?.name);
    if (workflow?.id === shown) return;
    const address = addressFor(workflow?.id);
    // A workflow opened after another is a step Back can undo; the first one (the page restoring what
    // was open) or none (the last one deleted) replaces the entry.
    if (shown && workflow) window.history.pushState(window.history.state, "", address);
    else window.history.replaceState(window.history.state, "", address);
    shown = workflow?.id;
  };
  const moved = async () => {
    const id = linkedWorkflow();
    if (id === store.getSnapshot().workflow?.id) return;
    shown = id;
    await open(id);
    // Not opened (deleted since): the address names what is open after all.
    const now = store.getSnapshot().workflow?.id;
    if (now === id) return;
    shown = now;
    window.history.replaceState(window.history.state, "", addressFor(now));
  };
  follow();
  const stop = store.subscribe(follow);
  const back = () => void moved();
  window.addEventListener("popstate", back);
  return () => {
    stop();
    window.removeEventListener("popstate", back);
  };
}
