/**
 * One step of the agent: what it ran (an execute_code action's title, its code collapsed, its risk),
 * then what came back: the observation's outcome and the action's own run time (a wait for an
 * approval stated apart), result (shown as the Action tab's Result shows one: a list of records as a
 * table, a collapsible tree), logs and capability calls, or view_image's picture, or the tool
 * error the model was told. In the panel, an action's code can be taken to the `Action` editor.
 */
import { createContext, type ReactNode, useContext } from "react";
import type { AgentMessage, ToolCall } from "../../../shared/agent/messages.ts";
import type { ExecuteCodeInput, ViewImageInput } from "../../../shared/agent/tools.ts";
import { timeWithWait } from "../../../shared/protocol/durations.ts";
import { ValueView } from "../panel/ValueView.tsx";
import { progressText, useSubtaskProgress } from "./subtask-progress.ts";

/** Puts an action's code in the panel's `Action` editor and shows it (absent where there is none). */
export const OpenInAction = createContext<((code: string) => void) | undefined>(undefined);

export interface StepCardProps {
  call: ToolCall;
  input: ExecuteCodeInput | ViewImageInput | undefined;
  result: Extract<AgentMessage, { role: "tool" }> | undefined;
  running: boolean;
  /** The tool result's own parts, rendered by the caller (images, texts). */
  parts: ReactNode;
}

export function StepCard({ call, input, result, running, parts }: StepCardProps) {
  const action = input && "code" in input ? input : undefined;
  const observation = result?.observation;
  const openInAction = useContext(OpenInAction);
  const title = action
    ? (action.title ?? action.description)
    : input && "image_id" in input
      ? input.image_id.slice(0, 60)
      : call.name;
  return (
    <article className="step" aria-label={`Step: ${title}`}>
      <header>
        <strong>{call.name}</strong> {title}
        {action?.risk === "high" ? <span className="risk"> (high risk)</span> : null}
      </header>
      {action ? (
        <details>
          <summary>Code</summary>
          <pre className="code">{action.code}</pre>
          {openInAction ? (
            <button type="button" onClick={() => openInAction(action.code)}>
              Edit in Action tab
            </button>
          ) : null}
        </details>
      ) : null}
      {running ? <Running /> : null}
      {observation ? (
        <div className="observation">
          <p className={observation.ok ? "status ok" : "status failed"}>
            {observation.ok ? "ok" : observation.error?.code} in{" "}
            {timeWithWait(observation.duration_ms, observation.approval_ms)}
            {observation.error ? `: ${observation.error.message}` : ""}
          </p>
          {observation.ok && observation.result !== undefined ? <ValueView value={observation.result} /> : null}
          {observation.logs.length > 0 ? (
            <ol className="logs">
              {observation.logs.map((log, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: logs are positional
                <li key={i}>{log}</li>
              ))}
            </ol>
          ) : null}
          {observation.calls.length > 0 ? (
            <ul className="calls" aria-label="Capability calls">
              {observation.calls.map((c, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: calls are positional
                <li key={i}>
                  {c.capability}: {c.ok ? "ok" : "failed"} ({timeWithWait(c.ms, c.approval_ms)})
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      {result && !observation ? <div className={result.is_error ? "tool-error" : "tool-result"}>{parts}</div> : null}
    </article>
  );
}

/** "Running…", and what a child agent the action started is doing (its latest step). */
function Running() {
  const progress = useSubtaskProgress();
  return (
    <>
      <p className="status">Running…</p>
      {progress ? (
        <p className="status" role="status" aria-label="Subtask progress">
          {progressText(progress)}
        </p>
      ) : null}
    </>
  );
}
