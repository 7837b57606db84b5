/**
 * The open workflow's name in the editor's header, renamed in place (as in Figma or n8n): a click, or
 * Enter on it, turns it into a field; Enter or leaving the field saves, Escape cancels. A refusal (an
 * empty or too long name, a conflict) stays beside the field until the name is fixed or cancelled.
 */
import { useEffect, useRef, useState } from "react";

export interface WorkflowNameProps {
  name: string;
  /** Renames the workflow; answers why it was not renamed, or undefined. */
  onRename(name: string): Promise<string | undefined>;
}

export function WorkflowName({ name, onRename }: WorkflowNameProps) {
  const [draft, setDraft] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  // Set once the field is closing (saved, cancelled, or a save on its way): its blur must not save again.
  const closing = useRef(false);
  const button = useRef<HTMLButtonElement>(null);
  // Set when the field closes: focus goes back to the name once the button is on the page again. (A
  // frame timer could fire before React had put it back, after a save's await, and lose the focus.)
  const refocus = useRef(false);
  useEffect(() => {
    if (draft !== undefined || !refocus.current) return;
    refocus.current = false;
    button.current?.focus();
  }, [draft]);

  const close = () => {
    closing.current = true;
    refocus.current = true;
    setDraft(undefined);
    setProblem(undefined);
  };
  const save = async (value: string) => {
    const next = value.trim();
    if (next === name) return close();
    closing.current = true;
    const why = await onRename(next);
    if (why === undefined) return close();
    closing.current = false;
    setProblem(why);
  };

  if (draft === undefined) {
    return (
      <button
        ref={button}
        type="button"
        className="workflow-name"
        title={`${name}: click to rename`}
        aria-label={`Rename workflow ${name}`}
        onClick={() => {
          closing.current = false;
          setDraft(name);
        }}
      >
        {name}
      </button>
    );
  }
  return (
    <form
      className="rename-workflow"
      onSubmit={(event) => {
        event.preventDefault();
        void save(draft);
      }}
    >
      <input
        // biome-ignore lint/a11y/noAutofocus: the field exists only while the person renames the workflow
        autoFocus
        aria-label="Workflow name"
        value={draft}
        aria-invalid={problem !== undefined}
        aria-describedby={problem ? "rename-workflow-problem" : undefined}
        onFocus={(event) => event.currentTarget.select()}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={(event) => {
          if (event.key !== "Escape") return;
          event.preventDefault();
          close();
        }}
        onBlur={() => {
          if (!closing.current) void save(draft);
        }}
      />
      {problem ? (
        <span className="field-problem rename-problem" id="rename-workflow-problem" role="alert">
          Not renamed. {problem}
        </span>
      ) : null}
    </form>
  );
}
