/** Implementation of the `agents` namespace: a child agent for one subtask (agent/subtask.ts). */
import { runSubtask } from "../../shared/capabilities/specs/agents.specs.ts";
import { CodedError } from "../../shared/protocol/errors.ts";
import { NO_PROVIDER } from "../agent/models.ts";
import { implement } from "./define.ts";

export default [
  // The spec `needs` providers: a run without a configured provider never gets here.
  implement(runSubtask, async (run, args, call) => {
    const agent = run.services.agent;
    if (!agent) throw new CodedError({ code: "capability_unavailable", message: `run_subtask: ${NO_PROVIDER}` });
    return agent.subtask(run, args, call);
  }),
];
