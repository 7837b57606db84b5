/**
 * What the signed-in page is built from, once per session: the editor (store, controller, picker
 * list, runner), the jobs store, the sandbox client, the questions handed to the agent, and where the
 * session's events go.
 */
import type { SessionEvent } from "../../shared/protocol/server.ts";
import { subtaskProgress } from "./agent/subtask-progress.ts";
import { AgentAsks } from "./agent-asks.ts";
import { api, transport } from "./api.ts";
import { editorContext } from "./editor/agent-context.ts";
import { EditorController } from "./editor/controller.ts";
import { WorkflowRunner } from "./editor/runner.ts";
import { EditorStore } from "./editor/store.ts";
import { editorUiTarget } from "./editor/ui-target.ts";
import { WorkflowList } from "./editor/workflow-list.ts";
import { JobsStore } from "./jobs/jobs-store.ts";
import { createSandboxClient, type SandboxClient } from "./sandbox-client.ts";
import { UiClient } from "./ui-client.ts";

export interface PageParts {
  editor: EditorController;
  workflows: WorkflowList;
  jobs: JobsStore;
  runner: WorkflowRunner;
  sandbox: SandboxClient;
  /** Questions for the agent that the editor and the jobs list begin (agent-asks.ts). */
  asks: AgentAsks;
  /** What the agent is told of the editor with each message (agent-context.ts). */
  agentContext(): string;
  onEvent(event: SessionEvent): void;
}

/** Where `ui_switch_tab` moves focus: the canvas, or the panel. */
function focusTab(tab: "editor" | "panel"): void {
  const target =
    tab === "panel"
      ? document.getElementById("agent-panel")
      : document.querySelector<HTMLElement>(".editor-pane .react-flow__pane, .editor-pane");
  target?.focus();
}

export function createPage(sessionId: string): PageParts {
  const editor = new EditorController(api, new EditorStore(), sessionId);
  const workflows = new WorkflowList(editor);
  const jobs = new JobsStore(editor.calls);
  return {
    editor,
    workflows,
    jobs,
    runner: new WorkflowRunner(editor, jobs),
    asks: new AgentAsks(),
    agentContext: () => editorContext(editor),
    sandbox: createSandboxClient({ sessionId, transport, ui: new UiClient(api, editorUiTarget(editor, focusTab)) }),
    onEvent(event) {
      if (event.type === "workflow_changed") workflows.apply(event);
      else if (event.type === "job_progress" || event.type === "job_ended") jobs.event(event);
      else if (event.type === "subtask_progress") subtaskProgress.event(event);
    },
  };
}
