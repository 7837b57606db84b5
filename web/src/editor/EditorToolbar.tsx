/**
 * The editor's toolbar: the workflow picker, New, Import, Save, Undo/Redo, Add node, Auto layout, the
 * run controls, and the open workflow's name (renamed in place), version, Duplicate, Export and Delete.
 */
import type { ReactNode } from "react";
import { useSyncExternalStore } from "react";
import type { EditorController } from "./controller.ts";
import { DeleteWorkflow } from "./DeleteWorkflow.tsx";
import { NewWorkflow } from "./NewWorkflow.tsx";
import { ExportWorkflow, ImportWorkflow } from "./WorkflowFiles.tsx";
import { WorkflowName } from "./WorkflowName.tsx";
import type { WorkflowList } from "./workflow-list.ts";

export interface EditorToolbarProps {
  controller: EditorController;
  workflows: WorkflowList;
  onSave(): void;
  onPalette(): void;
  onLayout(): void;
  onDelete(): Promise<string | undefined>;
  /** The run controls (they need the jobs and the runner). */
  run: ReactNode;
  onMessage(message: string | undefined): void;
}

export function EditorToolbar(props: EditorToolbarProps) {
  const { controller, workflows, onSave, onPalette, onLayout, onDelete, run, onMessage } = props;
  const snapshot = useSyncExternalStore(controller.store.subscribe, controller.store.getSnapshot);
  const list = useSyncExternalStore(workflows.subscribe, workflows.getSnapshot);
  const { workflow, graph } = snapshot;
  return (
    <div className="editor-toolbar" role="toolbar" aria-label="Workflow">
      <label>
        Workflow{" "}
        <select
          value={workflow?.id ?? ""}
          onFocus={() => void workflows.refresh()}
          onChange={(e) => {
            if (e.target.value) void controller.open(e.target.value).then(onMessage);
          }}
        >
          <option value="">(none open)</option>
          {list.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
      </label>
      <NewWorkflow onCreate={async (name) => onMessage(await controller.create(name))} />
      <ImportWorkflow onImport={async (file) => onMessage(await controller.importFile(file))} />
      <button type="button" onClick={onSave} disabled={!workflow || !snapshot.dirty}>
        Save
      </button>
      <button
        type="button"
        onClick={() => controller.store.undo()}
        disabled={!snapshot.canUndo}
        aria-keyshortcuts="Control+Z"
      >
        Undo
      </button>
      <button
        type="button"
        onClick={() => controller.store.redo()}
        disabled={!snapshot.canRedo}
        aria-keyshortcuts="Control+Shift+Z"
      >
        Redo
      </button>
      {workflow ? (
        <>
          <button type="button" onClick={onPalette} aria-keyshortcuts="Control+K">
            Add node
          </button>
          <button type="button" onClick={onLayout} disabled={graph.nodes.length === 0}>
            Auto layout
          </button>
          {run}
          <span className="workflow-state">
            <WorkflowName key={workflow.id} name={workflow.name} onRename={(name) => controller.rename(name)} /> ·
            version {workflow.version}
            {snapshot.dirty ? " · unsaved draft" : ""}
          </span>
          <button
            type="button"
            title="Open a copy of this workflow (unsaved changes too) as a new workflow"
            aria-label="Duplicate workflow"
            onClick={async () => {
              await workflows.refresh();
              onMessage(await controller.duplicate(workflows.getSnapshot().map((w) => w.name)));
            }}
          >
            Duplicate
          </button>
          <ExportWorkflow file={() => controller.exportFile()} />
          <DeleteWorkflow key={workflow.id} name={workflow.name} onDelete={onDelete} />
        </>
      ) : null}
    </div>
  );
}
