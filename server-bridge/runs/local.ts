/**
 * Runs for local entrances that have no browser (the CLI, later stdio MCP): a session of the local
 * user on the shared store, and a gate chosen by the caller. With no mode the run gets the headless
 * gate (reads only). With a mode, asks go to the approver the caller supplies (a terminal prompt, an
 * MCP elicitation) or are denied with a message naming how to choose a mode.
 */
import type { Mode } from "../../shared/capabilities/types.ts";
import type { Approver } from "../../shared/gate/approvals.ts";
import { denyingApprover, headlessGate } from "../../shared/gate/headless.ts";
import type { AppServices } from "../app-services.ts";
import { LOCAL_USER } from "../auth/tokens.ts";
import type { LiveRun } from "./runs.ts";

export interface LocalRunOptions {
  mode?: Mode | undefined;
  modules?: string[] | undefined;
  packs?: string[] | undefined;
  approver?: Approver | undefined;
  /** The agent conversation whose action this run is (the CLI agent's). */
  threadId?: string | undefined;
}

export interface LocalRun {
  live: LiveRun;
  sessionId: string;
  packs: string[];
  end(): Promise<void>;
}

const NO_APPROVER =
  "No one can answer approvals here, so this call was denied. Run again with --mode auto to let it run, or answer prompts from a terminal.";

export async function openLocalRun(app: AppServices, options: LocalRunOptions): Promise<LocalRun> {
  const session = await app.sessions.create(LOCAL_USER, {
    mode: options.mode ?? "default",
    modules: options.modules,
    packs: options.packs,
  });
  // No mode: the headless gate (reads only). A mode: the session's store-backed gate, asking `approver`.
  const live =
    options.mode === undefined
      ? await app.runs.start(LOCAL_USER, session.sessionId, { gate: headlessGate(), threadId: options.threadId })
      : await app.runs.start(LOCAL_USER, session.sessionId, {
          approver: options.approver ?? denyingApprover(NO_APPROVER),
          threadId: options.threadId,
        });
  return {
    live,
    sessionId: session.sessionId,
    packs: session.packs,
    end: async () => {
      await app.runs.end(LOCAL_USER, live.id, "ended");
      await app.audit.flush();
    },
  };
}
