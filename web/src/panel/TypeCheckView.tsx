/**
 * `Check types` for the Action editor: the type checker loads on the first press, in its own worker (a
 * run never waits for it); the problems it found show under the editor and at their place in it.
 */
import { useCallback, useState } from "react";
import type { CheckedText } from "./CodeEditor.tsx";

/** Where the last type check is: running, done (with the text it checked), or unable to run. */
export type CheckState =
  | { state: "checking" }
  | { state: "done"; checked: CheckedText }
  | { state: "failed"; message: string };

export function useTypeCheck(current: () => string) {
  const [check, setCheck] = useState<CheckState | undefined>();
  const checkTypes = useCallback(async () => {
    const source = current();
    setCheck({ state: "checking" });
    try {
      // Loaded on the first check only: the compiler never weighs on the page's own start.
      const { checkTypes: typeCheck } = await import("./typecheck-client.ts");
      setCheck({ state: "done", checked: { code: source, problems: await typeCheck(source) } });
    } catch (err) {
      setCheck({ state: "failed", message: err instanceof Error ? err.message : "the check failed" });
    }
  }, [current]);
  return { check, checkTypes };
}

export function TypeCheck({ check }: { check: CheckState | undefined }) {
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
