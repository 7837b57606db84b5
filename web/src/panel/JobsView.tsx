/** Workflow jobs of this session, live from the event stream: status, progress, the failing node. */
import type { JobView } from "../useSession.ts";

export function JobsView({ jobs }: { jobs: JobView[] }) {
  if (jobs.length === 0) return null;
  return (
    <section className="jobs" aria-label="Jobs">
      <h2>Jobs</h2>
      <ul>
        {jobs.map((job) => (
          <li key={job.job_id}>
            <code>{job.job_id}</code> <span className={`job-${job.status}`}>{job.status}</span>{" "}
            <progress max={100} value={job.percent} aria-label={`Progress of ${job.job_id}`}>
              {job.percent}%
            </progress>{" "}
            {Math.round(job.percent)}%{job.node_id && job.status !== "completed" ? ` · node ${job.node_id}` : ""}
            {job.error ? <div className="error">{job.error}</div> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
