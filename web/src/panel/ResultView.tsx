/**
 * The `Result` region: the observation of the last action (result, logs, calls with timings, error with
 * position). The result shows as ValueView does: tables, a collapsible tree, images.
 */

import { timeWithWait } from "../../../shared/protocol/durations.ts";
import type { Observation } from "../../../shared/protocol/worker.ts";
import { Revealed } from "../reveal-view.tsx";
import { ValueView } from "./ValueView.tsx";

export interface ResultViewProps {
  observation: Observation | undefined;
  /** The result as host values (its assets shown as assets); else the observation's readable result. */
  value?: unknown;
  running: boolean;
  notice?: string | undefined;
}

export function ResultView({ observation, value, running, notice }: ResultViewProps) {
  return (
    <section className="result" aria-label="Result" aria-live="polite" aria-busy={running}>
      <h2>Result</h2>
      {notice ? <p className="notice">{notice}</p> : null}
      {running ? <p className="status">Running…</p> : null}
      {!running && !observation ? <p className="status">Run an action to see its result here.</p> : null}
      {observation ? (
        <>
          <p className={observation.ok ? "status ok" : "status failed"}>
            {observation.ok ? "ok" : "failed"} in {timeWithWait(observation.duration_ms, observation.approval_ms)}
          </p>
          {observation.error ? (
            <div className="error" role="alert">
              <strong>{observation.error.code}</strong>
              {observation.error.line !== undefined ? (
                <span className="position">
                  {" "}
                  at line {observation.error.line}
                  {observation.error.column !== undefined ? `, column ${observation.error.column}` : ""}
                </span>
              ) : null}
              : <Revealed text={observation.error.message} />
            </div>
          ) : null}
          {"result" in observation && observation.ok ? (
            <ValueView value={value !== undefined ? value : observation.result} />
          ) : null}
          {observation.logs.length > 0 ? (
            <>
              <h3>Logs</h3>
              <ol className="logs">
                {observation.logs.map((log, i) => {
                  return (
                    // biome-ignore lint/suspicious/noArrayIndexKey: logs are positional
                    <li key={i}>
                      <Revealed text={log} />
                    </li>
                  );
                })}
              </ol>
            </>
          ) : null}
          {observation.calls.length > 0 ? (
            <>
              <h3>Calls</h3>
              <table className="calls">
                <thead>
                  <tr>
                    <th>capability</th>
                    <th>outcome</th>
                    <th>ms</th>
                  </tr>
                </thead>
                <tbody>
                  {observation.calls.map((call, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: calls are positional
                    <tr key={i}>
                      <td>{call.capability}</td>
                      <td>{call.ok ? "ok" : "failed"}</td>
                      <td>{Math.round(call.ms)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
