/**
 * `Run workflow` and `Cancel` for the open workflow, the graph's run inputs, and how its last run went
 * (RunOutcome.tsx). Before the first run of a graph whose nodes write, execute or reach outside, an
 * inline confirmation names the categories and what uses them; it asks once per workflow (and again
 * only for a new one). "Save first" saves the draft before it runs.
 */
import { type RefObject, useState, useSyncExternalStore } from "react";
import type { Category } from "../../../shared/capabilities/types.ts";
import type { Graph } from "../../../shared/graph/document.ts";
import type { JobEntry, JobsStore } from "../jobs/jobs-store.ts";
import { useStoredFlag } from "../stored-flag.ts";
import { inputValues, RunInputs, runInputs } from "./RunInputs.tsx";
import { RunOutcome } from "./RunOutcome.tsx";
import type { Effect, WorkflowRunner } from "./runner.ts";
import type { UserCalls } from "./user-calls.ts";

const WORDS: Record<Category, string> = {
  read: "read",
  write: "write (change stored data)",
  execute: "execute (run other work)",
  external: "reach outside (external)",
};

export interface RunControlsProps {
  /** The `Run workflow` button (Ctrl/Cmd+Enter presses it). */
  button?: RefObject<HTMLButtonElement | null>;
  runner: WorkflowRunner;
  jobs: JobsStore;
  job: JobEntry | undefined;
  /** The open workflow's id (its input fields are kept in the runner's `fields`; render keyed by it). */
  workflowId: string;
  /** The graph on screen: its workflow inputs get a field each; with no nodes the button waits. */
  graph: Graph;
  onMessage(message: string | undefined): void;
  /** Brings a node into view and selects it (the outcome's `Show node`). */
  onShowNode(nodeId: string): void;
  /** Begins a question for the agent (the outcome's `Ask the agent`; absent without an agent). */
  onAsk?: ((text: string) => void) | undefined;
  /** The person's calls (an asset input lists their assets). */
  calls: UserCalls;
}

export function RunControls(props: RunControlsProps) {
  const { button, workflowId, runner, jobs, job, graph, onMessage, onShowNode, onAsk, calls } = props;
  const inputs = runInputs(graph);
  // Nothing to run yet: the button waits, as Save does with nothing to save.
  const empty = graph.nodes.length === 0;
  const [asking, setAsking] = useState<Effect[] | undefined>();
  // What the person typed for each input (or took from a past run), kept per workflow across reloads.
  const fields = useSyncExternalStore(runner.fields.subscribe, () => runner.fields.get(workflowId));
  const keep = (next: Record<string, string>) => runner.fields.set(workflowId, next);
  const [busy, setBusy] = useState(false);
  // The person's preference for a dirty draft: run it as shown, or save it first (kept across reloads).
  const [saveFirst, setSaveFirst] = useStoredFlag("run-save-first");
  const live = job !== undefined && (job.status === "queued" || job.status === "running");

  const start = async () => {
    setBusy(true);
    try {
      const outcome = await runner.run({ saveFirst, inputs: inputValues(fields, inputs) });
      onMessage("problem" in outcome ? outcome.problem : undefined);
    } finally {
      setBusy(false);
    }
  };

  const waiting = empty || busy || live || asking !== undefined;
  const press = async () => {
    if (waiting) return;
    const unconfirmed = await runner.unconfirmed();
    if (unconfirmed.length > 0) setAsking(unconfirmed);
    else void start();
  };

  return (
    <span className="run-controls">
      <button
        ref={button}
        type="button"
        className="primary"
        aria-keyshortcuts="Control+Enter Meta+Enter"
        disabled={waiting}
        onClick={() => void press()}
      >
        Run workflow
      </button>
      {live ? (
        <button
          type="button"
          onClick={async () => {
            onMessage(await jobs.cancel(job.job_id));
          }}
        >
          Cancel
        </button>
      ) : null}
      <RunInputs inputs={inputs} fields={fields} onChange={keep} onSubmit={() => void press()} calls={calls} />
      <label className="save-first">
        <input type="checkbox" checked={saveFirst} onChange={(event) => setSaveFirst(event.target.checked)} /> Save
        first
      </label>
      {asking ? (
        <fieldset className="confirm-run">
          <legend>Confirm the run</legend>
          <span>
            This workflow will{" "}
            {[...new Set(asking.map((e) => e.category))].map((category) => WORDS[category]).join(" and ")}:{" "}
            {asking.map((e) => `${e.capability} (from ${e.node_types.join(", ")})`).join("; ")}. Run it as you?
          </span>
          <button
            type="button"
            onClick={async () => {
              await runner.confirm(asking);
              setAsking(undefined);
              void start();
            }}
          >
            Yes, run it
          </button>
          <button type="button" onClick={() => setAsking(undefined)}>
            Not now
          </button>
        </fieldset>
      ) : null}
      <RunOutcome job={job} graph={graph} onShowNode={onShowNode} onAsk={onAsk} />
    </span>
  );
}
