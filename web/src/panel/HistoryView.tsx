/** The `History` tab: past actions, newest first (capped); an entry restores its code and last result. */
import { HISTORY_MAX } from "../persist.ts";
import type { Actions } from "./useActions.ts";

function firstLine(code: string): string {
  return code.split("\n").find((l) => l.trim() && !l.startsWith("import")) ?? code.slice(0, 60);
}

export function HistoryView({ actions, onRestored }: { actions: Actions; onRestored(): void }) {
  const { history } = actions;
  return (
    <section className="history" aria-label="History">
      <div className="history-head">
        <p className="status">
          {history.length === 0 ? "No actions yet." : `The last ${history.length} of at most ${HISTORY_MAX} actions.`}
        </p>
        <button type="button" onClick={() => void actions.clear()} disabled={history.length === 0}>
          Clear history
        </button>
      </div>
      <ol>
        {history.map((entry) => (
          <li key={entry.id}>
            <button
              type="button"
              className="history-entry"
              title="Restore this action's code and its last result"
              onClick={() => {
                actions.restore(entry);
                onRestored();
              }}
            >
              <span className={entry.ok ? "ok" : "failed"}>{entry.summary}</span>{" "}
              <time dateTime={new Date(entry.at).toISOString()}>{new Date(entry.at).toLocaleTimeString()}</time>
              <code>{firstLine(entry.code)}</code>
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}
