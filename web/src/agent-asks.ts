/**
 * The page's other parts hand the agent a question to finish: a node's menu `Ask the agent`, a failed
 * job's `Ask the agent`, the empty editor's `Ask the agent to build one`. The panel shows its Agent tab
 * (the dock opens if it was hidden) and puts the question's start in Message, with the cursor after it,
 * for the person to finish and send: nothing is sent on their behalf. Its value (for
 * `useSyncExternalStore`) is whether a question can be asked now.
 */
import { ExternalStore } from "./external-store.ts";

export class AgentAsks extends ExternalStore<boolean> {
  /** The panel's conversation, while it has an agent to ask. */
  #answerer: ((text: string) => void) | undefined;
  /** What must show the panel first (the dock, when the panel is hidden). */
  readonly #watchers = new Set<() => void>();

  constructor() {
    super(false);
  }

  ask(text: string): void {
    if (!this.#answerer) return;
    for (const watcher of this.#watchers) watcher();
    this.#answerer(text);
  }

  /** The conversation takes the questions, until the returned function is called. */
  answer = (answerer: (text: string) => void): (() => void) => {
    this.#answerer = answerer;
    this.publish(true);
    return () => {
      if (this.#answerer !== answerer) return;
      this.#answerer = undefined;
      this.publish(false);
    };
  };

  watch = (watcher: () => void): (() => void) => {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  };
}

/** How a question about nodes of a workflow (none: the workflow itself) begins. */
export function aboutNodes(
  workflow: string,
  nodes: readonly { id: string; title?: string | undefined; type: string }[],
): string {
  if (nodes.length === 0) return `About the workflow "${workflow}": `;
  const named = nodes.map((n) => `"${n.id}" (${n.title ? `${n.title}, ` : ""}${n.type})`);
  const which = named.length === 1 ? `node ${named[0]}` : `nodes ${named.join(", ")}`;
  return `About the ${which} in the workflow "${workflow}": `;
}

/** How a question about a failed job of a workflow begins (its error, and the node that failed). */
export function aboutFailure(
  workflow: string,
  error: { code: string; message: string; node_id?: string | undefined } | null | undefined,
): string {
  const at = error?.node_id !== undefined ? ` at node "${error.node_id}"` : "";
  return `The job of the workflow "${workflow}" failed${at}: ${error?.code}: ${error?.message} `;
}
