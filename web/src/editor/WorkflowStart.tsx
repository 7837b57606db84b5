/**
 * What the editor shows with no workflow open: the person's workflows, the last edited first, each
 * opened by a click (or Enter), one with an unsaved draft in this browser marked so; more than fit, a `Find a workflow` box filters them all by name and
 * description (Enter opens the first found, Down goes to the list); with none yet, the ways to make
 * one; and workflows to start from (examples.ts), each opened as a new workflow of the person's own.
 */
import { keys } from "idb-keyval";
import { useEffect, useState, useSyncExternalStore } from "react";
import { timeAgo } from "../../../shared/protocol/durations.ts";
import { WORKFLOW_EXAMPLES, type WorkflowExample } from "./examples.ts";
import { ahead, holdsWords } from "./find-words.ts";
import type { WorkflowList } from "./workflow-list.ts";

/** How many are listed here; the picker has them all, and the find box finds any. */
const SHOWN = 12;

/**
 * The workflows whose name or description holds every word of `query`, case aside: those whose name
 * holds them all first, each group in the list's order.
 */
export function findWorkflows<T extends { name: string; description?: string }>(
  list: readonly T[],
  query: string,
): T[] {
  const holds = holdsWords(query);
  const found = list.filter((w) => holds(`${w.name}\n${w.description ?? ""}`));
  return ahead(found, (w) => holds(w.name));
}

export interface WorkflowStartProps {
  workflows: WorkflowList;
  onOpen(id: string): void;
  /** Opens a workflow to start from as a new one of the person's own. */
  onExample(example: WorkflowExample): void;
  /** Begins a request to the agent to build one (absent without an agent). */
  onAsk: (() => void) | undefined;
}

/** The workflows this browser keeps an unsaved draft of (the editor's `draft:<id>` entries). */
function useDrafted(): ReadonlySet<string> {
  const [drafted, setDrafted] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    let live = true;
    void keys()
      .then((all) => {
        const ids = all.flatMap((key) => (typeof key === "string" && key.startsWith("draft:") ? [key.slice(6)] : []));
        if (live) setDrafted(new Set(ids));
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, []);
  return drafted;
}

export function WorkflowStart({ workflows, onOpen, onExample, onAsk }: WorkflowStartProps) {
  const list = useSyncExternalStore(workflows.subscribe, workflows.getSnapshot);
  const drafted = useDrafted();
  const [query, setQuery] = useState("");
  const now = Date.now();
  const searchable = list.length > SHOWN;
  const found = searchable ? findWorkflows(list, query) : list;
  return (
    <div className="workflow-start">
      <p className="status">Open a workflow or create a new one.</p>
      {list.length > 0 ? (
        <nav aria-labelledby="workflow-start-heading">
          <h2 id="workflow-start-heading">Your workflows</h2>
          {searchable ? (
            <label className="workflow-find">
              Find a workflow{" "}
              <input
                type="search"
                value={query}
                placeholder={`${list.length} workflows: name or description`}
                spellCheck={false}
                onChange={(event) => setQuery(event.target.value)}
                onKeyDown={(event) => {
                  const first = found[0];
                  if (event.key === "Enter" && query.trim() && first) {
                    event.preventDefault();
                    onOpen(first.id);
                  } else if (event.key === "ArrowDown" && first) {
                    // Down goes to the list (then Tab, or Shift+Tab back), as a search box's results do.
                    event.preventDefault();
                    event.currentTarget.closest("nav")?.querySelector<HTMLElement>("li button")?.focus();
                  }
                }}
              />
            </label>
          ) : null}
          <ul>
            {found.slice(0, SHOWN).map((w) => (
              <li key={w.id}>
                <span className="workflow-start-name">
                  <button type="button" onClick={() => onOpen(w.id)}>
                    {w.name}
                  </button>
                  {w.description ? <span className="workflow-start-description">{w.description}</span> : null}
                </span>
                <span className="workflow-start-meta">
                  version {w.version} · edited{" "}
                  <time dateTime={w.updated_at} title={new Date(w.updated_at).toLocaleString()}>
                    {timeAgo(w.updated_at, now)}
                  </time>
                  {drafted.has(w.id) ? <strong className="workflow-start-draft"> · unsaved draft</strong> : null}
                </span>
              </li>
            ))}
          </ul>
          {found.length === 0 ? (
            <p role="status">No workflow's name or description has “{query.trim()}”.</p>
          ) : found.length > SHOWN ? (
            <p>
              {found.length - SHOWN} more{query.trim() ? " found" : ""}: find one by its name, or pick it in the
              Workflow picker above.
            </p>
          ) : null}
        </nav>
      ) : (
        <p>
          You have no workflows yet. <strong>New workflow</strong> starts an empty one; <strong>Import</strong> opens a
          workflow file, as does dropping one here.
        </p>
      )}
      <section aria-labelledby="workflow-examples-heading">
        <h2 id="workflow-examples-heading">Start from an example</h2>
        <ul>
          {WORKFLOW_EXAMPLES.map((example) => (
            <li key={example.name}>
              <span className="workflow-start-name">
                <button type="button" onClick={() => onExample(example)}>
                  {example.name}
                </button>
                <span className="workflow-start-description">{example.description}</span>
              </span>
            </li>
          ))}
        </ul>
      </section>
      {onAsk ? (
        <p>
          <button type="button" onClick={onAsk}>
            Ask the agent to build one
          </button>
        </p>
      ) : null}
    </div>
  );
}
