/**
 * The `Jobs` tab: the user's workflow jobs from the server (they survive a reload), newest first with
 * the live ones on top: workflow name, status, progress, duration, the inputs each run was given,
 * outputs (with `Copy`) and the error naming the failing node. Where the page has an editor: `Show
 * node` finds that node on the canvas, `Open workflow` opens another workflow's job, `Use these
 * inputs` puts a run's inputs in its workflow's run inputs, and `Only <workflow>` and `Only failed`
 * filter the list; `Nodes` lists a job's nodes with their status and time (JobNodes.tsx). `Ask the
 * agent` begins a question about a failure in the conversation. Kept live from the session's job
 * events; `Show older jobs` below reads the next page.
 */
import { memo, useEffect, useState, useSyncExternalStore } from "react";
import { formatMs } from "../../../shared/protocol/durations.ts";
import { Copy } from "../agent/CopyButton.tsx";
import { aboutFailure } from "../agent-asks.ts";
import { useAssetNames } from "../asset-names.ts";
import { type Fields, fieldsOf } from "../editor/run-fields.ts";
import type { EditorStore } from "../editor/store.ts";
import { eachFrameUntil } from "../editor/view.ts";
import type { JobEntry, JobsStore } from "../jobs/jobs-store.ts";
import { useStoredFlag } from "../stored-flag.ts";
import { JobNodes } from "./JobNodes.tsx";
import { ValueView, valuesLine } from "./ValueView.tsx";

function duration(job: JobEntry): string {
  if (job.duration_ms === null) return job.status === "queued" || job.status === "running" ? "running" : "";
  return formatMs(job.duration_ms);
}

/**
 * Opens a job's workflow in the editor and, given one, shows its node on the canvas; answers why not,
 * when it cannot.
 */
export type ShowNode = (workflowId: string | null, nodeId?: string) => Promise<string | undefined>;

/** Puts a past run's inputs in its workflow's run inputs and opens it; answers why not, when it cannot. */
export type TakeInputs = (workflowId: string, fields: Fields) => Promise<string | undefined>;

/** Focus the first run input, once the editor shows the workflow's. */
function focusRunInputs(): void {
  eachFrameUntil(() => {
    const field = document.querySelector<HTMLElement>('.run-inputs :is(select, input[type="text"])');
    field?.focus();
    return field !== null && document.activeElement === field;
  });
}

/** When a job began: the time of day for today's, with the date for older ones. */
function started(at: string, now = new Date()): string {
  const when = new Date(at);
  return when.toDateString() === now.toDateString()
    ? when.toLocaleTimeString()
    : when.toLocaleString(undefined, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
}

interface JobItemProps {
  job: JobEntry;
  store: JobsStore;
  showNode?: ShowNode | undefined;
  /** Begins a question for the agent (absent where there is no agent to ask). */
  ask?: ((text: string) => void) | undefined;
  takeInputs?: TakeInputs | undefined;
  /** Its workflow is the one open in the editor (no `Open workflow` then). */
  open: boolean;
}

function JobItem({ job, store, showNode, ask, takeInputs, open }: JobItemProps) {
  const name = job.workflow_name ?? (job.workflow_id ? job.workflow_id : "a workflow graph");
  const live = job.status === "queued" || job.status === "running";
  const [shown, setShown] = useState<string | undefined>();
  const failedNode = job.error?.node_id;
  const fields = fieldsOf(job.inputs);
  return (
    <li className="job" aria-label={`${name}: ${job.status}`} tabIndex={-1}>
      <div className="job-head">
        <strong>{name}</strong> <span className={`job-${job.status}`}>{job.status}</span>{" "}
        {live ? (
          <>
            <progress max={100} value={job.progress.percent} aria-label={`Progress of ${name}`}>
              {job.progress.percent}%
            </progress>{" "}
            {Math.round(job.progress.percent)}%{" "}
            <button type="button" aria-label={`Cancel job ${name}`} onClick={() => void store.cancel(job.job_id)}>
              Cancel
            </button>
          </>
        ) : (
          <span className="job-duration">{duration(job)}</span>
        )}
        <time dateTime={job.created_at} className="job-time" title={new Date(job.created_at).toLocaleString()}>
          {started(job.created_at)}
        </time>
        {showNode && job.workflow_id !== null && !open ? (
          <button
            type="button"
            className="open-workflow"
            aria-label={`Open workflow ${name}`}
            onClick={() => void showNode(job.workflow_id).then(setShown)}
          >
            Open workflow
          </button>
        ) : null}
      </div>
      {job.error ? (
        <div className="error">
          {job.error.code}: {job.error.message}
          {showNode && failedNode !== undefined ? (
            <>
              {" "}
              <button
                type="button"
                className="show-node"
                onClick={() => void showNode(job.workflow_id, failedNode).then(setShown)}
              >
                Show node {failedNode}
              </button>
            </>
          ) : null}
          {ask ? (
            <>
              {" "}
              <button
                type="button"
                aria-label={`Ask the agent why ${name} failed`}
                onClick={() => ask(aboutFailure(name, job.error))}
              >
                Ask the agent
              </button>
            </>
          ) : null}
        </div>
      ) : null}
      {shown ? <p className="status">{shown}</p> : null}
      {given(job.inputs) ? (
        <p className="job-inputs">
          <InputsLine inputs={job.inputs} />
          {takeInputs && job.workflow_id !== null && fields !== undefined ? (
            <button
              type="button"
              aria-label={`Use these inputs in ${name}`}
              onClick={() => {
                const workflowId = job.workflow_id;
                if (workflowId === null) return;
                void takeInputs(workflowId, fields).then((why) => {
                  setShown(why);
                  if (why === undefined) focusRunInputs();
                });
              }}
            >
              Use these inputs
            </button>
          ) : null}
        </p>
      ) : null}
      {job.progress.total > 0 ? <JobNodes jobId={job.job_id} status={job.status} store={store} /> : null}
      {job.outputs !== undefined && job.outputs !== null && job.status === "completed" ? (
        <div className="job-outputs">
          <ValueView value={job.outputs} />
          <Copy value={job.outputs} label={`Copy the outputs of ${name}`} />
        </div>
      ) : null}
    </li>
  );
}

/** A run's inputs in a line, an asset picked for one by its name. */
function InputsLine({ inputs }: { inputs: unknown }) {
  const line = valuesLine(inputs, undefined, useAssetNames(inputs));
  return <span title={line}>Inputs: {line}</span>;
}

/** A run was given inputs (an empty object, or none read, is none). */
function given(inputs: unknown): boolean {
  if (inputs === undefined || inputs === null) return false;
  return typeof inputs !== "object" || Array.isArray(inputs) || Object.keys(inputs).length > 0;
}

/** The open workflow, re-read only when it changes (not on each edit of its graph). */
function useOpenWorkflow(editor: EditorStore | undefined): { id: string; name: string } | undefined {
  return useSyncExternalStore(editor?.subscribe ?? noSubscribe, () => editor?.getSnapshot().workflow);
}

const noSubscribe = () => () => {};

/**
 * The list's filters: `Only <workflow>`, the open workflow's jobs (following the workflow opened
 * next; with none open, every workflow's), and `Only failed`. Both choices stay across reloads.
 */
function JobsFilters({ store, open }: { store: JobsStore; open: { id: string; name: string } | undefined }) {
  const [only, setOnly] = useStoredFlag("jobs-only-open");
  const [failed, setFailed] = useStoredFlag("jobs-only-failed");
  const workflow = only && open ? open.id : undefined;
  useEffect(() => {
    void store.filter({ workflow, failed });
  }, [store, workflow, failed]);
  return (
    <div className="jobs-filters">
      {open ? (
        <label>
          <input type="checkbox" checked={only} onChange={(event) => setOnly(event.target.checked)} /> Only {open.name}
        </label>
      ) : null}
      <label>
        <input type="checkbox" checked={failed} onChange={(event) => setFailed(event.target.checked)} /> Only failed
      </label>
    </div>
  );
}

/**
 * `Show older jobs`: the next page below the list; focus goes to the first job it added, as a "load
 * more" should (the button itself goes once there are no more).
 */
function OlderJobs({ store }: { store: JobsStore }) {
  const [loading, setLoading] = useState(false);
  return (
    <button
      type="button"
      className="older-jobs"
      aria-disabled={loading}
      onClick={(event) => {
        if (loading) return;
        const list = event.currentTarget.closest("section")?.querySelector("ul");
        const shown = list?.children.length ?? 0;
        setLoading(true);
        void store
          .older()
          .finally(() => setLoading(false))
          .then(() => requestAnimationFrame(() => (list?.children[shown] as HTMLElement | undefined)?.focus()));
      }}
    >
      {loading ? "Loading older jobs…" : "Show older jobs"}
    </button>
  );
}

function JobsList({
  store,
  visible,
  showNode,
  ask,
  editor,
  takeInputs,
}: {
  store: JobsStore;
  visible: boolean;
  showNode?: ShowNode | undefined;
  ask?: ((text: string) => void) | undefined;
  /** The page's editor: the list can show only its open workflow's jobs (a widget has none). */
  editor?: EditorStore | undefined;
  takeInputs?: TakeInputs | undefined;
}) {
  const jobs = store.shown(useSyncExternalStore(store.subscribe, store.getSnapshot));
  const open = useOpenWorkflow(editor);
  useEffect(() => {
    if (visible) void store.refresh();
  }, [store, visible]);
  return (
    <section className="jobs" aria-label="Jobs">
      {editor ? <JobsFilters store={store} open={open} /> : null}
      {store.error ? <p className="error">{store.error}</p> : null}
      {jobs.length === 0 ? (
        <p className="status">
          {!store.loaded
            ? "Reading the jobs…"
            : store.filtered
              ? "No job matches these filters."
              : "No workflow has run yet."}
        </p>
      ) : null}
      <ul>
        {jobs.map((job) => (
          <JobItem
            key={job.job_id}
            job={job}
            store={store}
            showNode={showNode}
            ask={ask}
            takeInputs={takeInputs}
            open={open !== undefined && job.workflow_id === open.id}
          />
        ))}
      </ul>
      {store.hasOlder ? <OlderJobs store={store} /> : null}
    </section>
  );
}

/** Unchanged props (the panel re-renders on every run of the Action tab) skip its render. */
export const JobsView = memo(JobsList);
