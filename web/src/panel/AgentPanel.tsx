/**
 * The agent panel: the `Action` editor, `Run` (Ctrl/Cmd+Enter) and `Cancel`, `Check types` (the type
 * checker loads on this first press, in its own worker; a run never waits for it), the `Result`
 * region, and the history of past actions (kept across reloads).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { Observation } from "../../../shared/protocol/worker.ts";
import { addHistory, type HistoryEntry, loadDraft, loadHistory, saveDraft } from "../persist.ts";
import type { SandboxClient } from "../sandbox-client.ts";
import { type CheckedText, CodeEditor } from "./CodeEditor.tsx";
import { ResultView } from "./ResultView.tsx";

export const EXAMPLE_ACTION = `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";

const { workflows: list } = await workflows.list({ limit: 5 });
console.log("found", list.length, "workflows");
export default list.map((w) => w.name);
`;

/** Where the last type check is: running, done (with the text it checked), or unable to run. */
type CheckState =
  | { state: "checking" }
  | { state: "done"; checked: CheckedText }
  | { state: "failed"; message: string };

export interface AgentPanelProps {
  sandbox: SandboxClient;
}

export function AgentPanel({ sandbox }: AgentPanelProps) {
  const [code, setCode] = useState<string | undefined>();
  const [running, setRunning] = useState(false);
  const [observation, setObservation] = useState<Observation | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [history, setHistory] = useState<HistoryEntry[]>([]);
  const [check, setCheck] = useState<CheckState | undefined>();
  const codeRef = useRef("");

  useEffect(() => {
    loadDraft().then((draft) => setCode(draft ?? EXAMPLE_ACTION));
    loadHistory().then(setHistory);
  }, []);

  const onChange = useCallback((value: string) => {
    codeRef.current = value;
    void saveDraft(value);
  }, []);

  const run = useCallback(async () => {
    if (running) return;
    const source = codeRef.current || code || "";
    setRunning(true);
    setNotice(undefined);
    setObservation(undefined);
    try {
      const result = await sandbox.run(source);
      setObservation(result.observation);
      if (result.notice) setNotice(result.notice);
      const summary = result.observation.ok ? "ok" : `${result.observation.error?.code ?? "failed"}`;
      setHistory(
        await addHistory({ id: crypto.randomUUID(), code: source, at: Date.now(), ok: result.observation.ok, summary }),
      );
    } finally {
      setRunning(false);
    }
  }, [running, code, sandbox]);

  const checkTypes = useCallback(async () => {
    const source = codeRef.current || code || "";
    setCheck({ state: "checking" });
    try {
      // Loaded on the first check only: the compiler never weighs on the page's own start.
      const { checkTypes: typeCheck } = await import("./typecheck-client.ts");
      setCheck({ state: "done", checked: { code: source, problems: await typeCheck(source) } });
    } catch (err) {
      setCheck({ state: "failed", message: err instanceof Error ? err.message : "the check failed" });
    }
  }, [code]);

  if (code === undefined) return <p>Loading…</p>;
  if (!codeRef.current) codeRef.current = code;

  return (
    <div className="agent-panel">
      <div className="editor-column">
        <CodeEditor
          value={code}
          onChange={onChange}
          onRun={() => {
            void run();
          }}
          checked={check?.state === "done" ? check.checked : undefined}
        />
        <div className="toolbar">
          <button
            type="button"
            onClick={() => void run()}
            disabled={running}
            aria-keyshortcuts="Control+Enter Meta+Enter"
          >
            Run
          </button>
          {running ? (
            <button type="button" onClick={() => sandbox.cancel()}>
              Cancel
            </button>
          ) : null}
          <button type="button" onClick={() => void checkTypes()} disabled={check?.state === "checking"}>
            Check types
          </button>
          <span className="hint">Ctrl/Cmd+Enter runs the action</span>
        </div>
        <TypeCheck check={check} />
        <ResultView observation={observation} running={running} notice={notice} />
      </div>
      <section className="history" aria-label="History">
        <h2>History</h2>
        {history.length === 0 ? <p className="status">No actions yet.</p> : null}
        <ol>
          {history.map((entry) => (
            <li key={entry.id}>
              <button
                type="button"
                className="history-entry"
                title="Load this action into the editor"
                onClick={() => {
                  codeRef.current = entry.code;
                  setCode(entry.code);
                  void saveDraft(entry.code);
                }}
              >
                <span className={entry.ok ? "ok" : "failed"}>{entry.summary}</span>{" "}
                <time dateTime={new Date(entry.at).toISOString()}>{new Date(entry.at).toLocaleTimeString()}</time>
                <code>
                  {entry.code.split("\n").find((l) => l.trim() && !l.startsWith("import")) ?? entry.code.slice(0, 60)}
                </code>
              </button>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}

function TypeCheck({ check }: { check: CheckState | undefined }) {
  if (!check) return null;
  return (
    <section className="type-check" aria-label="Type check" aria-live="polite">
      {check.state === "checking" ? <p className="status">Checking types…</p> : null}
      {check.state === "failed" ? <p className="status failed">The type check could not run: {check.message}</p> : null}
      {check.state === "done" && check.checked.problems.length === 0 ? (
        <p className="status ok">No type errors.</p>
      ) : null}
      {check.state === "done" && check.checked.problems.length > 0 ? (
        <ol>
          {check.checked.problems.map((problem) => (
            <li key={`${problem.from}:${problem.message}`}>
              line {problem.line}, column {problem.column}: {problem.message.split("\n")[0]}
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
