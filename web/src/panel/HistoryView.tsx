/** The `History` tab: past actions, newest first (capped); an entry restores its code and last result. */
import { memo } from "react";
import { HISTORY_MAX, type HistoryEntry } from "../persist.ts";

function firstLine(code: string): string {
  return code.split("\n").find((l) => l.trim() && !l.startsWith("import")) ?? code.slice(0, 60);
}

export interface HistoryViewProps {
  history: readonly HistoryEntry[];
  restore(entry: HistoryEntry): void;
  clear(): Promise<void>;
  onRestored(): void;
}

/** Re-renders only when the history or a handler changes, not on every run's state change. */
export const HistoryView = memo(function HistoryView({ history, restore, clear, onRestored }: HistoryViewProps) {
  return (
    <section className="history" aria-label="History">
      <div className="history-head">
        <p className="status">
          {history.length === 0 ? "No actions yet." : `The last ${history.length} of at most ${HISTORY_MAX} actions.`}
        </p>
        <button type="button" onClick={() => void clear()} disabled={history.length === 0}>
          Clear history
        </button>
      </div>
      <ol>
        {history.map((entry) => (
          <HistoryRow
            key={entry.id}
            entry={entry}
            onClick={() => {
              restore(entry);
              onRestored();
            }}
          />
        ))}
      </ol>
    </section>
  );
});

/** An entry never changes once written (the list read back from storage holds equal copies). */
const HistoryRow = memo(
  function HistoryRow({ entry, onClick }: { entry: HistoryEntry; onClick(): void }) {
    return (
      <li>
        <button
          type="button"
          className="history-entry"
          title="Restore this action's code and its last result"
          onClick={onClick}
        >
          <span className={entry.ok ? "ok" : "failed"}>{entry.summary}</span>{" "}
          <time dateTime={new Date(entry.at).toISOString()}>{new Date(entry.at).toLocaleTimeString()}</time>
          <code>{firstLine(entry.code)}</code>
        </button>
      </li>
    );
  },
  (before, after) => before.entry.id === after.entry.id,
);
