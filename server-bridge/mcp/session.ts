/**
 * The agent session behind one MCP session: a store-backed session of the user the MCP client is bound
 * to (the MCP token's owner over HTTP, the local user over stdio), in the configured mode, with every
 * capability module mounted and the first-party packs allowed. The allow-set lives in the store, so an
 * "allow for this session" answer lasts for the MCP session. Each `execute_code` is one run in it,
 * whose approver is bound to that tool call (its elicitations travel on the call's own stream).
 */
import type { Mode } from "../../shared/capabilities/types.ts";
import type { Approver } from "../../shared/gate/approvals.ts";
import type { AppServices } from "../app-services.ts";
import type { LiveRun } from "../runs/runs.ts";
import type { SessionView } from "../runs/sessions.ts";

export interface McpRun {
  live: LiveRun;
  /** Ends the run (aborts what still waits on it) and flushes its audit rows; safe to call twice. */
  end(reason?: "ended" | "cancelled"): Promise<void>;
}

export class McpAgentSession {
  readonly sessionId: string;
  readonly mounted: readonly string[];
  readonly packs: readonly string[];

  private constructor(
    private readonly app: AppServices,
    readonly userId: string,
    session: SessionView,
  ) {
    this.sessionId = session.sessionId;
    this.mounted = session.modules;
    this.packs = session.packs;
  }

  static async open(app: AppServices, userId: string, mode: Mode): Promise<McpAgentSession> {
    return new McpAgentSession(app, userId, await app.sessions.create(userId, { mode }));
  }

  /** The session's mode as the store has it now (a person may change it from the editor). */
  mode(): Promise<Mode> {
    return this.app.sessions.mode(this.sessionId);
  }

  async openRun(approver: Approver): Promise<McpRun> {
    const live = await this.app.runs.start(this.userId, this.sessionId, { approver });
    let ended = false;
    return {
      live,
      end: async (reason = "ended") => {
        if (ended) return;
        ended = true;
        await this.app.runs.end(this.userId, live.id, reason);
        await this.app.audit.flush();
      },
    };
  }
}
