/** The workflow editor beside the agent panel: workflow list, New, Save, Undo/Redo, the palette, the canvas. */
import "@xyflow/react/dist/style.css";
import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import { searchNodeTypes } from "../../../shared/graph/catalog-search.ts";
import { NODE_TYPES } from "../../../shared/graph/node-types.ts";
import { Canvas } from "./Canvas.tsx";
import type { EditorController, WorkflowSummary } from "./controller.ts";

export function EditorPane({ controller }: { controller: EditorController }) {
  const snapshot = useSyncExternalStore(controller.store.subscribe, controller.store.getSnapshot);
  const [workflows, setWorkflows] = useState<WorkflowSummary[]>([]);
  const [message, setMessage] = useState<string | undefined>();
  const [conflict, setConflict] = useState(false);
  const [query, setQuery] = useState("");

  const refresh = useCallback(async () => setWorkflows(await controller.list()), [controller]);
  useEffect(() => {
    void controller.restore().then(refresh);
  }, [controller, refresh]);

  const edit = controller.userEdit.bind(controller);
  const save = async () => {
    const outcome = await controller.save();
    if (outcome.ok) {
      setConflict(false);
      setMessage("Saved.");
      void refresh();
    } else {
      setConflict(outcome.conflict);
      setMessage(
        outcome.conflict
          ? "This workflow was changed elsewhere since you opened it. Your draft was not saved."
          : outcome.message,
      );
    }
  };

  const palette = query.trim() ? searchNodeTypes(query, 12) : NODE_TYPES.slice(0, 12);
  const workflow = snapshot.workflow;
  return (
    <section
      className="editor-pane"
      aria-label="Workflow editor"
      onKeyDown={(e) => {
        const mod = e.ctrlKey || e.metaKey;
        if (!mod || (e.target as HTMLElement).closest(".cm-editor, input, select, textarea")) return;
        if (e.key.toLowerCase() === "z" && !e.shiftKey) {
          e.preventDefault();
          controller.store.undo();
        } else if ((e.key.toLowerCase() === "z" && e.shiftKey) || e.key.toLowerCase() === "y") {
          e.preventDefault();
          controller.store.redo();
        } else if (e.key.toLowerCase() === "s") {
          e.preventDefault();
          void save();
        }
      }}
    >
      <div className="editor-toolbar">
        <label>
          Workflow{" "}
          <select
            value={workflow?.id ?? ""}
            onFocus={() => void refresh()}
            onChange={(e) => {
              if (e.target.value) void controller.open(e.target.value).then((err) => setMessage(err));
            }}
          >
            <option value="">(none open)</option>
            {workflows.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          onClick={async () => {
            const name = window.prompt("Name of the new workflow", "Untitled workflow");
            if (name) {
              setMessage(await controller.create(name));
              void refresh();
            }
          }}
        >
          New workflow
        </button>
        <button type="button" onClick={() => void save()} disabled={!workflow || !snapshot.dirty}>
          Save
        </button>
        <button type="button" onClick={() => controller.store.undo()} disabled={!snapshot.canUndo}>
          Undo
        </button>
        <button type="button" onClick={() => controller.store.redo()} disabled={!snapshot.canRedo}>
          Redo
        </button>
        {workflow ? (
          <span className="workflow-state">
            {workflow.name} · version {workflow.version}
            {snapshot.dirty ? " · unsaved draft" : ""}
          </span>
        ) : null}
      </div>
      {message ? (
        <p className="banner" role="status">
          {message}{" "}
          {conflict && workflow ? (
            <button
              type="button"
              onClick={async () => {
                setMessage(await controller.open(workflow.id, { discardDraft: true }));
                setConflict(false);
              }}
            >
              Reload
            </button>
          ) : null}
        </p>
      ) : null}
      {workflow ? (
        <div className="editor-body">
          <div className="palette">
            <label>
              Add node{" "}
              <input
                type="search"
                value={query}
                onChange={(e) => setQuery(e.target.value)}
                placeholder="search node types"
              />
            </label>
            <ul>
              {palette.map((type) => (
                <li key={type.id}>
                  <button
                    type="button"
                    title={type.description}
                    onClick={() => {
                      setMessage(edit("ui_add_node", { node_type: type.id }));
                      setQuery("");
                    }}
                  >
                    {type.title} <small>{type.id}</small>
                  </button>
                </li>
              ))}
            </ul>
          </div>
          <Canvas graph={snapshot.graph} onUserEdit={(op, args) => setMessage(edit(op, args))} />
        </div>
      ) : (
        <p className="status">Open a workflow or create a new one.</p>
      )}
    </section>
  );
}
