/** Implementations of the `jobs` namespace over the workflow engine's job rows. */
import { cancelJob, getJob, listJobs, waitJob } from "../../shared/capabilities/specs/jobs.specs.ts";
import { engineOf } from "../engine/jobs.ts";
import { implement } from "./define.ts";

export default [
  implement(listJobs, async (run, args) => {
    const jobs = await engineOf(run).list(run.context.user_id, args);
    return { jobs, count: jobs.length };
  }),
  implement(getJob, async (run, args) =>
    engineOf(run).view(run.context.user_id, args.job_id, { nodes: true, nodeOutputs: args.include_node_outputs }),
  ),
  implement(cancelJob, async (run, args) => engineOf(run).cancel(run.context.user_id, args.job_id)),
  implement(waitJob, async (run, args) =>
    engineOf(run).wait(run.context.user_id, args.job_id, args.wait_ms, run.context.signal),
  ),
];
