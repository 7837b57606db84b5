/**
 * What the editor shows with no workflow open: the person's workflows, the last edited first, each
 * opened by a click (or Enter); with none yet, the ways to make one; and workflows to start from
 * (examples.ts), each opened as a new workflow of the person's own.
 */
import { useSyncExternalStore } from "react";
import { timeAgo } from "../../../shared/protocol/durations.ts";
import { WORKFLOW_EXAMPLES, type WorkflowExample } from "./examples.ts";
import type { WorkflowList } from "./workflow-list.ts";

/** How many are listed here; the picker has them all. */
const SHOWN = 12;

export interface WorkflowStartProps {
  workflows: WorkflowList;
  onOpen(id: string): void;
  /** Opens a workflow to start from as a new one of the person's own. */
  onExample(example: WorkflowExample): void;
  /** Begins a request to the agent to build one (absent without an agent). */
  onAsk: (() => void) | undefined;
}

export function WorkflowStart({ workflows, onOpen, onExample, onAsk }: WorkflowStartProps) {
  const list = useSyncExternalStore(workflows.subscribe, workflows.getSnapshot);
  const now = Date.now();
  return (
    <div className="workflow-start">
      <p className="status">Open a workflow or create a new one.</p>
      {list.length > 0 ? (
        <nav aria-labelledby="workflow-start-heading">
          <h2 id="workflow-start-heading">Your workflows</h2>
          <ul>
            {list.slice(0, SHOWN).map((w) => (
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
                </span>
              </li>
            ))}
          </ul>
          {list.length > SHOWN ? <p>{list.length - SHOWN} more in the Workflow picker above.</p> : null}
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
