/**
 * The editor's toolbar, in two rows. The first is the document's: the workflow picker, New, Import, and
 * the open workflow's name (renamed in place), version and `More` (Duplicate, Export, Delete). The
 * second, while a workflow is open, edits and runs it: Save, Undo/Redo, Add node, Auto layout and the
 * run controls.
 */
import type { ReactNode } from "react";
import { useCallback, useSyncExternalStore } from "react";
import type { EditorController } from "./controller.ts";
import { NewWorkflow } from "./NewWorkflow.tsx";
import { ImportWorkflow } from "./WorkflowFiles.tsx";
import { WorkflowMenu } from "./WorkflowMenu.tsx";
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
  const versions = useCallback(() => controller.versions.list(), [controller]);
  return (
    <div className="editor-toolbar" role="toolbar" aria-label="Workflow">
      <div className="toolbar-row">
        <label>
          Workflow{" "}
          <select
            className="workflow-picker"
            value={workflow?.id ?? ""}
            onFocus={() => void workflows.refresh()}
            onChange={(e) => {
              if (e.target.value) void controller.open(e.target.value).then(onMessage);
              else void controller.close();
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
        {workflow ? (
          <span className="workflow-doc">
            <span className="workflow-state">
              <WorkflowName
                key={workflow.id}
                name={workflow.name}
                onRename={(name) => controller.setDetail("name", name)}
              />{" "}
              <span className="workflow-status">
                · version {workflow.version}
                {snapshot.dirty ? " · unsaved draft" : ""}
              </span>
            </span>
            <WorkflowMenu
              key={workflow.id}
              name={workflow.name}
              version={workflow.version}
              versions={versions}
              onOpenVersion={(version) => controller.versions.open(version)}
              onCompareVersion={(version, since) => controller.versions.compare(version, since)}
              onDuplicate={async () => {
                await workflows.refresh();
                onMessage(await controller.duplicate(workflows.getSnapshot().map((w) => w.name)));
              }}
              file={() => controller.exportFile()}
              onClose={() => void controller.close()}
              onDelete={onDelete}
            />
          </span>
        ) : null}
      </div>
      {workflow ? (
        <div className="toolbar-row">
          <button type="button" onClick={onSave} disabled={!snapshot.dirty} aria-keyshortcuts="Control+S">
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
          <span className="toolbar-separator" />
          <button type="button" onClick={onPalette} aria-keyshortcuts="Control+K">
            Add node
          </button>
          <button type="button" onClick={onLayout} disabled={graph.nodes.length === 0}>
            Auto layout
          </button>
          <span className="toolbar-separator" />
          {run}
        </div>
      ) : null}
    </div>
  );
}
