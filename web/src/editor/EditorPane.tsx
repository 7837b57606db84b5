/**
 * The workflow editor, the page's main area: the toolbar (picker, New, Save, Undo/Redo, Add node,
 * Auto layout, Run workflow), the canvas with its palette, and the inspector of the selected node.
 */
import "@xyflow/react/dist/style.css";
import "./editor.css";
import { ReactFlowProvider, useReactFlow } from "@xyflow/react";
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { isNote } from "../../../shared/graph/node-types.ts";
import { type AgentAsks, aboutNodes } from "../agent-asks.ts";
import { takeDroppedFiles } from "../file-drops.ts";
import type { JobsStore } from "../jobs/jobs-store.ts";
import { type Sending, UploadProgress } from "../UploadProgress.tsx";
import { Canvas, type PaletteRequest, requestHandleType } from "./Canvas.tsx";
import { CanvasMenu, type MenuRequest, menuFor } from "./CanvasMenu.tsx";
import { useNodeClipboard } from "./clipboard.ts";
import type { EditorController } from "./controller.ts";
import { EditorToolbar } from "./EditorToolbar.tsx";
import { compatibleTypes } from "./handles.ts";
import { Inspector } from "./Inspector.tsx";
import { useEditorKeys } from "./keys.ts";
import { autoLayout, type Size } from "./layout.ts";
import { NewerVersion } from "./NewerVersion.tsx";
import { NodeFinder } from "./NodeFinder.tsx";
import { useNoteEditing } from "./NoteNode.tsx";
import { Palette, type PaletteChoice, paletteEdits } from "./Palette.tsx";
import { RunControls } from "./RunControls.tsx";
import type { WorkflowRunner } from "./runner.ts";
import { ShortcutsDialog } from "./Shortcuts.tsx";
import { eachFrameUntil, fitOnceMeasured, focusOnceDrawn, nearestLeft, useOpened } from "./view.ts";
import { WorkflowStart } from "./WorkflowStart.tsx";
import { holdsWorkflow } from "./workflow-file.ts";
import type { WorkflowList } from "./workflow-list.ts";
import { followOpenWorkflow, linkedWorkflow } from "./workflow-url.ts";

export interface EditorPaneProps {
  controller: EditorController;
  workflows: WorkflowList;
  jobs: JobsStore;
  runner: WorkflowRunner;
  /** Where a node's menu begins a question for the agent (`Ask the agent`). */
  asks?: AgentAsks | undefined;
}

export function EditorPane(props: EditorPaneProps) {
  return (
    <ReactFlowProvider>
      <Editor {...props} />
    </ReactFlowProvider>
  );
}

const noAsks = () => () => {};
const never = () => false;

type Notice = { text: string; kind: "success" | "problem" };

/** How long a success notice ("Saved.") stays. */
const SUCCESS_MS = 2500;

function Editor({ controller, workflows, jobs, runner, asks }: EditorPaneProps) {
  const snapshot = useSyncExternalStore(controller.store.subscribe, controller.store.getSnapshot);
  useSyncExternalStore(jobs.subscribe, jobs.getSnapshot);
  const canAsk = useSyncExternalStore(asks?.subscribe ?? noAsks, asks?.getSnapshot ?? never);
  const flow = useReactFlow();
  const [notice, setNotice] = useState<Notice | undefined>();
  /** A file dropped on the canvas going up, and how much of it has. */
  const [sending, setSending] = useState<Sending | undefined>();
  /** The drops on the canvas going up now (each batch of files a person dropped), for `Stop uploading`. */
  const dropping = useRef(new Set<AbortController>());
  const [selected, setSelected] = useState<string[]>([]);
  const [palette, setPalette] = useState<PaletteRequest | undefined>();
  /** What had focus when the palette opened: it has it back when the palette closes without adding. */
  const opener = useRef<HTMLElement | null>(null);
  const showPalette = useCallback((request: PaletteRequest) => {
    const active = document.activeElement;
    if (active instanceof HTMLElement && !active.closest(".palette")) opener.current = active;
    setPalette(request);
  }, []);
  const closePalette = () => {
    setPalette(undefined);
    if (opener.current?.isConnected) opener.current.focus();
    opener.current = null;
  };
  const pane = useRef<HTMLElement>(null);
  /** `Run workflow`: Ctrl/Cmd+Enter presses it (so it does just what a click does, or nothing while disabled). */
  const runButton = useRef<HTMLButtonElement>(null);
  const canvasBox = useRef<HTMLDivElement>(null);
  // The shortcuts list (what had focus when it opened gets it back).
  const shortcuts = useOpened<true>();
  const openShortcuts = useCallback(() => shortcuts.open(true), [shortcuts.open]);

  const problem = useCallback(
    (text: string | undefined) => setNotice(text ? { text, kind: "problem" } : undefined),
    [],
  );
  useEffect(() => {
    if (notice?.kind !== "success") return;
    const timer = setTimeout(() => setNotice(undefined), SUCCESS_MS);
    return () => clearTimeout(timer);
  }, [notice]);

  // Until what was open is open again and the workflows are listed, the start page would say "none".
  const [restored, setRestored] = useState(false);
  useEffect(() => {
    void controller
      .restore(linkedWorkflow())
      .then((failed) => {
        problem(failed);
        return workflows.refresh();
      })
      .finally(() => setRestored(true));
    return followOpenWorkflow(controller.store, async (id) => {
      if (id) problem(await controller.open(id));
      else await controller.close();
    });
  }, [controller, workflows, problem]);

  const workflow = snapshot.workflow;
  const graph = snapshot.graph;
  // An action's `ui.getGraph` tells the model what the person has selected.
  useEffect(() => {
    controller.selection = selected;
  }, [controller, selected]);
  const job = jobs.canvasJob(workflow?.id);

  const save = async () => {
    if (!workflow || !snapshot.dirty) return;
    const outcome = await controller.save();
    if (outcome.ok) setNotice({ text: "Saved.", kind: "success" });
    // A conflict: the banner of the newer version says what happened and offers the ways on.
    else problem(outcome.conflict ? undefined : outcome.message);
  };

  // Find a node: opened where the keyboard's palette opens; a pick shows the node (reveal).
  const finder = useOpened<{ x: number; y: number }>();
  const openFinder = (): boolean => {
    const box = canvasBox.current?.getBoundingClientRect();
    if (!box || graph.nodes.length === 0) return false;
    finder.open({ x: box.width / 2 - 150, y: 24 });
    return true;
  };

  const openPalette = () => {
    const box = canvasBox.current?.getBoundingClientRect();
    if (!box) return;
    // Opened from the toolbar or the keyboard: the new node goes beside the others (the view follows).
    showPalette({ at: { x: box.width / 2 - 150, y: 24 } });
  };

  const pick = (choice: PaletteChoice) => {
    const request = palette;
    setPalette(undefined);
    opener.current = null;
    if (!request) return;
    const { node_id, edits } = paletteEdits(graph, request, choice);
    const failed = controller.userEdits(edits);
    problem(failed);
    // The new node is the selection, so the inspector shows its inputs at once; it has focus (the arrow
    // keys move it, Delete removes it, Tab goes on to its inputs).
    if (failed === undefined) {
      setSelectNow([node_id]);
      focusOnceDrawn(node_id);
    }
  };

  const [selectNow, setSelectNow] = useState<string[] | undefined>();
  // A node shown from elsewhere (the Jobs tab's "Show node"): selected, in view, focused.
  useEffect(
    () =>
      controller.onReveal((nodeId) => {
        setSelectNow([nodeId]);
        fitOnceMeasured(flow, [nodeId], true);
        focusOnceDrawn(nodeId);
      }),
    [controller, flow],
  );
  const { copy, paste, pasteText, duplicate } = useNodeClipboard({
    controller,
    selected,
    select: setSelectNow,
    problem,
  });
  const selectAll = () => setSelectNow(controller.store.getSnapshot().graph.nodes.map((n) => n.id));
  // A field of a node in the inspector, focused (its text selected): the node becomes the selection
  // first, so the inspector shows it.
  const editField = (id: string, name: string, selectText: boolean) => {
    if (selected.length !== 1 || selected[0] !== id) setSelectNow([id]);
    eachFrameUntil(() => {
      const field = document.querySelector<HTMLInputElement | HTMLTextAreaElement>(
        `.inspector[data-node="${CSS.escape(id)}"] #field-${CSS.escape(name)}`,
      );
      field?.focus();
      if (selectText) field?.select();
      return field !== null;
    });
  };
  const notes = useNoteEditing((id, text, group) =>
    problem(controller.userEdit("ui_update_node_data", { node_id: id, data: { text } }, group)),
  );
  // The title of the focused node (or the one selected): F2 or the menu's Rename (Enter gives focus back).
  const rename = (named?: string) => {
    const focused = document.activeElement?.closest(".react-flow__node")?.getAttribute("data-id");
    const id = named ?? focused ?? (selected.length === 1 ? selected[0] : undefined);
    if (id !== undefined) editField(id, "title", true);
  };
  const remove = () => {
    const nodes = flow.getNodes().filter((n) => n.selected);
    const edges = flow.getEdges().filter((e) => e.selected);
    if (nodes.length === 0 && edges.length === 0) return;
    // Focus on what goes (or nowhere): it moves to the nearest node left (or the canvas), not the page.
    const focused = document.activeElement;
    const lost =
      focused === document.body ||
      nodes.some((n) => focused?.matches(`.react-flow__node[data-id="${CSS.escape(n.id)}"]`)) ||
      focused?.closest(".react-flow__edge") != null;
    const next = nearestLeft(flow.getNodes(), nodes);
    void flow.deleteElements({ nodes, edges }).then(() => {
      if (!lost) return;
      if (next) focusOnceDrawn(next);
      else canvasBox.current?.querySelector<HTMLElement>(".canvas")?.focus();
    });
  };
  useEditorKeys(
    {
      undo: () => controller.store.undo(),
      redo: () => controller.store.redo(),
      save: () => void save(),
      palette: () => workflow && openPalette(),
      find: openFinder,
      copy: () => copy(),
      paste: pasteText,
      duplicate: () => duplicate(),
      selectAll,
      remove,
      rename: () => rename(),
      run: () => runButton.current?.click(),
      shortcuts: openShortcuts,
    },
    useCallback(() => pane.current, []),
  );

  const layout = () => {
    const sizes = new Map<string, Size>();
    for (const node of flow.getNodes()) {
      if (node.measured?.width && node.measured.height) {
        sizes.set(node.id, { width: node.measured.width, height: node.measured.height });
      }
    }
    const moves = autoLayout(graph, sizes);
    if (moves.length === 0) return;
    problem(controller.userEdits(moves.map((args) => ({ op: "ui_move_node", args }))));
    requestAnimationFrame(() => void flow.fitView({ padding: 0.15, maxZoom: 1 }));
  };

  // The context menu: what it offers depends on what it opened on and the nodes it acts on.
  const { shown: menu, open: openMenu, close: closeMenu } = useOpened<MenuRequest>();
  const acted = menu?.nodes ?? selected;
  const chosen = new Set(acted);
  const wired = graph.edges.filter((e) => chosen.has(e.source) || chosen.has(e.target));
  const some = graph.nodes.length > 0;
  const shownMenu =
    menu &&
    menuFor(menu.kind, acted.length, {
      copy: () => {
        const text = copy(acted);
        // From the menu there is no copy event: the clipboard API takes it (a refusal keeps the page's copy).
        if (text !== undefined) void navigator.clipboard?.writeText(text).catch(() => {});
      },
      duplicate: () => duplicate(acted),
      remove,
      disconnect:
        wired.length > 0
          ? () => problem(controller.userEdits(wired.map((e) => ({ op: "ui_delete_edge", args: { edge_id: e.id } }))))
          : undefined,
      ask:
        asks && canAsk && workflow
          ? () =>
              asks.ask(
                aboutNodes(workflow.name, menu.kind === "pane" ? [] : graph.nodes.filter((n) => chosen.has(n.id))),
              )
          : undefined,
      rename: acted.length === 1 ? () => rename(acted[0]) : undefined,
      editNote:
        acted.length === 1 && isNote(graph.nodes.find((n) => n.id === acted[0])?.type ?? "")
          ? () => notes.start(acted[0] ?? "")
          : undefined,
      addNode: () => showPalette({ at: menu.at, flow: menu.flow }),
      paste: snapshot.clipboard?.nodes.length ? () => paste(menu.flow) : undefined,
      selectAll: some ? selectAll : undefined,
      layout: some ? layout : undefined,
      fit: some ? () => void flow.fitView({ padding: 0.15, maxZoom: 1 }) : undefined,
      find: some ? () => void openFinder() : undefined,
    });

  const inspected = selected.length === 1 ? graph.nodes.find((n) => n.id === selected[0]) : undefined;
  const only = palette && requestHandleType(graph, palette);

  return (
    <section
      className="editor-pane"
      aria-label="Workflow editor"
      ref={pane}
      // A workflow file (JSON) dropped anywhere on the editor is imported, as `Import` does with a chosen
      // one; other files (a JSON of data too) become the person's assets, each a Load asset node where
      // it was dropped; a file input (an asset field's upload) keeps taking what is dropped on it.
      {...takeDroppedFiles(async (files, at) => {
        const [first] = files;
        const place = flow.screenToFlowPosition({ x: at.clientX, y: at.clientY });
        if (first && (await holdsWorkflow(first))) {
          problem(await controller.importFile(first));
          return;
        }
        const stop = new AbortController();
        dropping.current.add(stop);
        const { nodes, problem: why } = await controller.addFiles(
          files,
          place,
          (name, fraction) => setSending({ name, fraction }),
          stop.signal,
        );
        dropping.current.delete(stop);
        if (dropping.current.size === 0) setSending(undefined);
        problem(why);
        if (nodes.length > 0) setSelectNow(nodes);
      })}
    >
      <EditorToolbar
        controller={controller}
        workflows={workflows}
        onSave={() => void save()}
        onPalette={openPalette}
        onLayout={layout}
        onDelete={async () => {
          const why = await controller.remove();
          await workflows.refresh();
          return why;
        }}
        run={
          <RunControls
            key={workflow?.id}
            workflowId={workflow?.id ?? ""}
            button={runButton}
            runner={runner}
            jobs={jobs}
            job={job}
            graph={graph}
            onMessage={problem}
            onShowNode={(nodeId) => {
              if (workflow) void controller.reveal(workflow.id, nodeId).then(problem);
            }}
            onAsk={asks && canAsk ? (text) => asks.ask(text) : undefined}
            calls={controller.calls}
          />
        }
        onMessage={problem}
      />
      {workflow && snapshot.deleted ? (
        <p className="banner" role="alert">
          This workflow was deleted elsewhere (by an action, another tab or MCP). Your draft is still here.{" "}
          <button type="button" onClick={async () => problem(await controller.saveAsNew())}>
            Save as a new workflow
          </button>
        </p>
      ) : null}
      {workflow && snapshot.newer !== undefined && !snapshot.deleted ? (
        <NewerVersion
          newer={snapshot.newer}
          onKeep={async () => {
            const outcome = await controller.save(snapshot.newer);
            if (outcome.ok) setNotice({ text: "Saved.", kind: "success" });
            else problem(outcome.conflict ? undefined : outcome.message);
          }}
          onLoad={async () => problem(await controller.open(workflow.id, { discardDraft: true }))}
        />
      ) : null}
      {notice ? (
        <p className={notice.kind === "success" ? "notice success" : "banner"} role="status">
          {notice.text}
        </p>
      ) : null}
      {sending ? (
        <UploadProgress
          sending={sending}
          onStop={() => {
            for (const stop of dropping.current) stop.abort();
          }}
        />
      ) : null}
      {workflow ? (
        <div className="editor-body">
          <div className="canvas-box" ref={canvasBox}>
            <Canvas
              graph={graph}
              byAction={snapshot.byAction}
              job={job}
              select={selectNow}
              onEdits={(edits) => problem(controller.userEdits(edits))}
              onSelection={(ids) => setSelected((now) => (now.join("\n") === ids.join("\n") ? now : ids))}
              onPalette={showPalette}
              notes={notes}
              onMessage={problem}
              onShortcuts={openShortcuts}
              onMenu={openMenu}
            />
            {menu && shownMenu ? (
              <CanvasMenu label={shownMenu.label} at={menu.at} items={shownMenu.items} onClose={closeMenu} />
            ) : null}
            {finder.shown && workflow ? (
              <NodeFinder
                at={finder.shown}
                graph={graph}
                onPick={(nodeId) => {
                  finder.close(false);
                  void controller.reveal(workflow.id, nodeId).then(problem);
                }}
                onClose={() => finder.close()}
              />
            ) : null}
            {palette ? (
              <Palette
                at={palette.at}
                only={only ? compatibleTypes(only, palette.from?.side ?? "source") : undefined}
                onPick={pick}
                onClose={closePalette}
              />
            ) : null}
          </div>
          <Inspector
            node={inspected}
            selected={selected.length}
            graph={graph}
            controller={controller}
            onMessage={problem}
            runs={job?.nodes}
          />
        </div>
      ) : !restored ? null : (
        <WorkflowStart
          workflows={workflows}
          onOpen={(id) => void controller.open(id).then(problem)}
          onExample={(example) => void controller.createFrom(example).then(problem)}
          onAsk={canAsk ? () => asks?.ask("Build a workflow that ") : undefined}
        />
      )}
      {shortcuts.shown ? <ShortcutsDialog onClose={shortcuts.close} /> : null}
    </section>
  );
}
