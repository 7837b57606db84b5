/**
 * The inspector with no node selected shows the open workflow itself: how many nodes and connections
 * it has, and its description (what it is for: the workflow list shows it, and the agent reads it in
 * `workflows.list`), edited in place. Leaving the field or Ctrl/Cmd+Enter saves it; Escape puts back
 * the stored one; a refusal stays beside the field until it is fixed.
 */
import { useEffect, useId, useRef, useState } from "react";
import type { Graph } from "../../../shared/graph/document.ts";
import { plural } from "../../../shared/protocol/durations.ts";

export interface WorkflowDetailsProps {
  description: string;
  graph: Graph;
  /** Stores the description; answers why it was not, or undefined. */
  onDescribe(description: string): Promise<string | undefined>;
}

export function WorkflowDetails({ description, graph, onDescribe }: WorkflowDetailsProps) {
  const [text, setText] = useState(description);
  const [problem, setProblem] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  /** What is being stored now: a blur right after Ctrl+Enter must not store it twice. */
  const storing = useRef<string | undefined>(undefined);
  const id = useId();
  // Described elsewhere (another tab, an action): the field follows, unless the person is changing it.
  const shown = useRef(description);
  useEffect(() => {
    if (description === shown.current) return;
    setText((now) => (now.trim() === shown.current ? description : now));
    shown.current = description;
  }, [description]);

  const save = async () => {
    const next = text.trim();
    if (next === description || storing.current === next) return;
    storing.current = next;
    const why = await onDescribe(next);
    storing.current = undefined;
    setProblem(why);
    setSaved(why === undefined);
  };

  return (
    <section className="workflow-details" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>This workflow</h3>
      <p className="field-help">
        {plural(graph.nodes.length, "node", "nodes")} · {plural(graph.edges.length, "connection", "connections")}
      </p>
      <div className="field">
        <label htmlFor={`${id}-description`}>Description</label>
        <textarea
          id={`${id}-description`}
          rows={3}
          value={text}
          placeholder="What this workflow does, for you and the agent"
          aria-invalid={problem !== undefined}
          aria-describedby={`${id}-hint`}
          onChange={(event) => {
            setText(event.target.value);
            setSaved(false);
          }}
          onBlur={() => void save()}
          onKeyDown={(event) => {
            if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
              event.preventDefault();
              void save();
            } else if (event.key === "Escape") {
              event.preventDefault();
              setText(description);
              setProblem(undefined);
            }
          }}
        />
        <small className="field-help" id={`${id}-hint`} role="status">
          {saved ? "Description saved." : "Saved when you leave the field (or Ctrl/Cmd+Enter); Escape undoes."}
        </small>
        {problem ? (
          <span className="field-problem" role="alert">
            Not saved. {problem}
          </span>
        ) : null}
      </div>
    </section>
  );
}
