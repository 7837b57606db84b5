/**
 * The agent panel: tabs for the agent's `Conversation`, the `Action` editor, the `History` of past
 * actions and the workflow `Jobs`, and the session's allow-set below them. The conversation is the
 * first tab, chosen at the start when a model provider is configured (else the Action editor is).
 */
import { useCallback, useEffect, useState } from "react";
import type { Mode } from "../../../shared/capabilities/types.ts";
import { Conversation } from "../agent/Conversation.tsx";
import type { AgentAsks } from "../agent-asks.ts";
import type { EditorStore } from "../editor/store.ts";
import type { UserCalls } from "../editor/user-calls.ts";
import type { JobsStore } from "../jobs/jobs-store.ts";
import { appPersistence, type Persistence } from "../persist.ts";
import type { SandboxClient } from "../sandbox-client.ts";
import type { Api } from "../transport.ts";
import { ActionTab } from "./ActionTab.tsx";
import { AssetsView } from "./AssetsView.tsx";
import { HistoryView } from "./HistoryView.tsx";
import { JobsView, type ShowNode, type TakeInputs } from "./JobsView.tsx";
import { type PanelTab, PanelTabs } from "./PanelTabs.tsx";
import { useActions } from "./useActions.ts";

export interface AgentPanelProps {
  sandbox: SandboxClient;
  jobs: JobsStore;
  allowed: readonly string[];
  onRevoke(capability: string): void;
  /** The session's mode (a high-risk action in auto mode asks once in the conversation). */
  mode: Mode;
  /** The page's API (the app's cookie transport, or a widget's credential). */
  api: Api;
  /** Where the drafts and the action history are kept (a widget keeps its own). */
  persistence?: Persistence | undefined;
  /** The person's own calls (attached files become their assets). */
  calls?: UserCalls | undefined;
  /** The page's editor shows a job's failing node (a widget has no editor of its own). */
  showNode?: ShowNode | undefined;
  /** Questions for the agent begun elsewhere on the page (a node's menu): shown in Message. */
  asks?: AgentAsks | undefined;
  /** The page's editor (the Jobs tab can list only its open workflow's jobs). */
  editor?: EditorStore | undefined;
  /** A past run's inputs into its workflow's run inputs (where the page has an editor). */
  takeInputs?: TakeInputs | undefined;
  /** A Load asset node of one of the person's assets on the open workflow's canvas (where the page has an editor). */
  addToWorkflow?: ((asset: { id: string; name: string }) => Promise<string | undefined>) | undefined;
  /** What the page shows, sent to the agent with each message (the editor's; a stable function). */
  agentContext?: (() => string | undefined) | undefined;
}

export function AgentPanel({
  sandbox,
  jobs,
  allowed,
  onRevoke,
  mode,
  api,
  persistence = appPersistence,
  showNode,
  calls,
  asks,
  editor,
  takeInputs,
  agentContext,
  addToWorkflow,
}: AgentPanelProps) {
  const actions = useActions(sandbox, persistence);
  // With a model provider, the conversation is the first tab, and it takes questions begun elsewhere;
  // without one, the Action editor is. No tab is shown chosen until the server has said which (one
  // shown first and then switched is a flash of the wrong one), unless the person chose first.
  const [configured, setConfigured] = useState<boolean>();
  const [chosenTab, setTab] = useState<string>();
  const tab = chosenTab ?? (configured === undefined ? undefined : configured ? "agent" : "action");
  useEffect(() => {
    let gone = false;
    api.agent.configured
      .query()
      .then((status) => !gone && setConfigured(status.configured))
      .catch(() => !gone && setConfigured(false));
    return () => {
      gone = true;
    };
  }, [api]);
  const toAction = useCallback(() => setTab("action"), []);
  // A question begun elsewhere goes into the conversation's Message (each one once, by its number).
  const [ask, setAsk] = useState<{ text: string; n: number } | undefined>();
  const askAgent = useCallback((text: string) => {
    setTab("agent");
    setAsk((last) => ({ text, n: (last?.n ?? 0) + 1 }));
  }, []);
  useEffect(() => (configured ? asks?.answer(askAgent) : undefined), [configured, asks, askAgent]);
  const { load } = actions;
  const openInAction = useCallback(
    (code: string) => {
      load(code);
      setTab("action");
    },
    [load],
  );
  const tabs: PanelTab[] = [
    {
      id: "agent",
      label: "Agent",
      content: (
        <Conversation
          api={api}
          sandbox={sandbox}
          mode={mode}
          persistence={persistence}
          openInAction={openInAction}
          calls={calls}
          ask={ask}
          context={agentContext}
        />
      ),
      fill: true,
    },
    { id: "action", label: "Action", content: <ActionTab actions={actions} /> },
    {
      id: "history",
      label: "History",
      content: (
        <HistoryView history={actions.history} restore={actions.restore} clear={actions.clear} onRestored={toAction} />
      ),
    },
    {
      id: "jobs",
      label: "Jobs",
      content: (
        <JobsView
          store={jobs}
          visible={tab === "jobs"}
          showNode={showNode}
          ask={askAgent}
          editor={editor}
          takeInputs={takeInputs}
        />
      ),
    },
    // Where the person's own calls exist (the app; a widget has none of its own to browse).
    ...(calls
      ? [
          {
            id: "assets",
            label: "Assets",
            content: (
              <AssetsView calls={calls} visible={tab === "assets"} ask={askAgent} addToWorkflow={addToWorkflow} />
            ),
          },
        ]
      : []),
  ];
  return (
    <div className="agent-panel">
      <PanelTabs tabs={tabs} selected={tab} onSelect={setTab} />
      <section className="allow-set" aria-label="Allowed for this session">
        <h2>Allowed for this session</h2>
        {allowed.length === 0 ? <p className="status">Nothing is allowed without asking.</p> : null}
        <ul>
          {allowed.map((name) => (
            <li key={name}>
              <code>{name}</code>{" "}
              <button type="button" onClick={() => onRevoke(name)} aria-label={`Revoke ${name}`}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
