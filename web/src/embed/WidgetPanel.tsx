/**
 * The widget once signed in: the same agent panel as the app (conversation, `Action` editor, history,
 * jobs), the mode selector up to the widget's highest mode, and the approval dialog, whose buttons
 * wake only once it has been fully visible for a second. The host page's runs go through the same
 * sandbox, one action at a time with the person's own; what happens (approvals asked and settled,
 * runs ended, job progress) is told to the host, never an approval's arguments.
 */
import { useEffect, useMemo, useRef, useSyncExternalStore } from "react";
import { MODES, type Mode } from "../../../shared/capabilities/types.ts";
import type { WidgetEvent } from "../../../shared/embed/protocol.ts";
import type { SessionEvent } from "../../../shared/protocol/server.ts";
import { subtaskProgress } from "../agent/subtask-progress.ts";
import { ConnectionStatus } from "../ConnectionStatus.tsx";
import { UserCalls } from "../editor/user-calls.ts";
import { ExternalStore } from "../external-store.ts";
import { JobsStore } from "../jobs/jobs-store.ts";
import { ModePicker } from "../ModePicker.tsx";
import { AgentPanel } from "../panel/AgentPanel.tsx";
import { ApprovalDialog } from "../panel/ApprovalDialog.tsx";
import type { Persistence } from "../persist.ts";
import { createSandboxClient, type SandboxClient } from "../sandbox-client.ts";
import type { Transport } from "../transport.ts";
import { UiClient } from "../ui-client.ts";
import { useSession } from "../useSession.ts";
import type { WidgetConfig } from "./config.ts";
import type { HostLink } from "./host-link.ts";
import { hostUiTarget } from "./host-ui.ts";

/** How long the approval dialog must have been fully visible before its buttons work. */
export const ARM_AFTER_MS = 1_000;

export interface WidgetPanelProps {
  config: WidgetConfig;
  link: HostLink;
  transport: Transport;
  persistence: Persistence;
  /** The host serves `ui` for its own editor. */
  hostUi: boolean;
}

/** Runs one action at a time, in the order asked (the person's and the host's share one sandbox). */
function oneAtATime(sandbox: SandboxClient): SandboxClient {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run(code) {
      const next = tail.then(() => sandbox.run(code));
      tail = next.catch(() => {});
      return next;
    },
    cancel: () => sandbox.cancel(),
  };
}

/** How long the host's runs must have been going before the panel says so (a quick one never shows). */
const HOST_RUN_NOTE_AFTER_MS = 250;

/**
 * Whether the host page's runs have been going for a while. Only the status line reads it, and it
 * changes only once runs outlast HOST_RUN_NOTE_AFTER_MS, so a quick run changes nothing on screen (the
 * line appearing and going again cost a trivial run ~3 ms of layout, and was a flicker).
 */
class HostRuns extends ExternalStore<boolean> {
  #count = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  constructor() {
    super(false);
  }
  add(delta: 1 | -1): void {
    this.#count += delta;
    if (this.#count > 0) {
      this.#timer ??= setTimeout(() => this.publish(true), HOST_RUN_NOTE_AFTER_MS);
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.getSnapshot()) this.publish(false);
  }
}

function HostRunsNote({ runs }: { runs: HostRuns }) {
  const running = useSyncExternalStore(runs.subscribe, runs.getSnapshot);
  return running ? (
    <p role="status" className="connection">
      The host page is running an action here; anything it asks is asked of you.
    </p>
  ) : null;
}

/** The modes the widget allows, lowest first. */
function modesUpTo(max: Mode): Mode[] {
  return MODES.slice(0, MODES.indexOf(max) + 1);
}

export function WidgetPanel({ config, link, transport, persistence, hostUi }: WidgetPanelProps) {
  const api = transport.api;
  const events = useRef<(event: SessionEvent) => void>(() => {});
  const { state, error, clearError, respond, setMode, revoke } = useSession(api, persistence, (event) =>
    events.current(event),
  );
  const sessionId = state.status === "ready" ? state.sessionId : undefined;
  const parts = useMemo(() => {
    if (!sessionId) return undefined;
    const ui = hostUi ? new UiClient(api, hostUiTarget(link)) : undefined;
    const calls = new UserCalls(api, sessionId);
    return {
      sandbox: oneAtATime(createSandboxClient({ sessionId, transport, ui })),
      calls,
      jobs: new JobsStore(calls),
    };
  }, [api, hostUi, link, sessionId, transport]);
  const hostRuns = useMemo(() => new HostRuns(), []);

  // What the host is told: approvals (without their arguments), run ends, job progress.
  const asked = useRef(new Map<string, Omit<Extract<WidgetEvent, { type: "approval" }>, "status">>());
  events.current = (event) => {
    if (event.type === "job_progress" || event.type === "job_ended") parts?.jobs.event(event);
    if (event.type === "subtask_progress") subtaskProgress.event(event);
    if (event.type === "approval_requested") {
      const { approval_id, run_id, capability, category } = event.approval;
      const seen = { type: "approval" as const, approval_id, run_id, capability, category };
      asked.current.set(approval_id, seen);
      link.event({ ...seen, status: "pending" });
    } else if (event.type === "approval_settled") {
      const seen = asked.current.get(event.approval_id);
      asked.current.delete(event.approval_id);
      if (seen) link.event({ ...seen, status: event.status });
    } else if (event.type === "run_ended" || event.type === "job_progress") link.event(event);
  };

  useEffect(() => {
    if (!parts) return;
    link.onRun((id, source) => {
      hostRuns.add(1);
      void parts.sandbox
        .run(source)
        .then(({ observation }) => link.send({ type: "run_result", id, observation }))
        .finally(() => hostRuns.add(-1));
    });
    link.send({ type: "connected" });
  }, [hostRuns, link, parts]);

  if (state.status === "loading") return <p className="status">Connecting…</p>;
  if (state.status !== "ready") {
    const message = state.status === "error" ? state.message : "The widget's credential was refused.";
    return (
      <p role="alert" className="banner">
        The widget could not open its session: {message} Reload the host page to try again.
      </p>
    );
  }
  const [current, ...queued] = state.approvals;
  return (
    <div className="app widget-app">
      <header>
        <h1>nodetool agent</h1>
        <ModePicker mode={state.mode} onChange={(mode) => void setMode(mode)} modes={modesUpTo(config.maxMode)} />
      </header>
      <ConnectionStatus transport={transport} />
      <HostRunsNote runs={hostRuns} />
      {error ? (
        <p role="alert" className="banner">
          {error}{" "}
          <button type="button" onClick={clearError}>
            Dismiss
          </button>
        </p>
      ) : null}
      <main id="agent-panel">
        {parts ? (
          <AgentPanel
            sandbox={parts.sandbox}
            jobs={parts.jobs}
            allowed={state.allowed}
            onRevoke={(name) => void revoke(name)}
            mode={state.mode}
            api={api}
            calls={parts.calls}
            persistence={persistence}
          />
        ) : null}
      </main>
      {current ? (
        <ApprovalDialog
          key={current.approval_id}
          approval={current}
          queued={queued.length}
          onAnswer={respond}
          armAfterMs={ARM_AFTER_MS}
        />
      ) : null}
    </div>
  );
}
