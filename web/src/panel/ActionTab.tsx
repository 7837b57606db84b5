/**
 * The `Action` tab: the code editor, `Run` (Ctrl/Cmd+Enter) and `Cancel`, `Check types`, and the
 * `Result` region.
 */
import { CodeEditor } from "./CodeEditor.tsx";
import { ResultView } from "./ResultView.tsx";
import { TypeCheck, useTypeCheck } from "./TypeCheckView.tsx";
import type { Actions } from "./useActions.ts";

export function ActionTab({ actions }: { actions: Actions }) {
  const { check, checkTypes } = useTypeCheck(actions.current);
  if (actions.source === undefined) return <p className="status">Loading…</p>;
  return (
    <div className="action-tab">
      <CodeEditor
        source={actions.source}
        onChange={actions.edited}
        onRun={() => void actions.run()}
        checked={check?.state === "done" ? check.checked : undefined}
      />
      <div className="toolbar">
        <button
          type="button"
          onClick={() => void actions.run()}
          // Not `disabled`: a disabled button drops focus, and the approval dialog returns focus here.
          aria-disabled={actions.running}
          aria-keyshortcuts="Control+Enter Meta+Enter"
        >
          Run
        </button>
        {actions.running ? (
          <button type="button" onClick={actions.cancel}>
            Cancel
          </button>
        ) : null}
        <button type="button" onClick={() => void checkTypes()} disabled={check?.state === "checking"}>
          Check types
        </button>
        <span className="hint">Ctrl/Cmd+Enter runs the action</span>
      </div>
      <TypeCheck check={check} />
      <ResultView
        observation={actions.observation}
        value={actions.value}
        running={actions.running}
        notice={actions.notice}
      />
    </div>
  );
}
