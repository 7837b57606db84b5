/**
 * The open workflow in the page: its graph, undo/redo history, dirty flag and clipboard. Agent edits
 * (`ui_*`, after the server authorised them) and hand edits go through the same shared document
 * operations, so both are visible at once, undoable, and an unsaved draft until Save.
 *
 * Undo steps: consecutive operations of one `group` are one step (all `ui_*` edits of one action, so
 * an action's `commit()` undoes at once; a paste with its edges; the keystrokes of one field edit; an
 * auto layout). Any other change, undo or redo closes the group.
 */
import type { Graph, Workflow } from "../../../shared/graph/document.ts";
import { applyOp, type DocumentOp, type Fragment, type OpResult } from "../../../shared/graph/ops.ts";
import { ExternalStore } from "../external-store.ts";

export interface OpenWorkflow {
  id: string;
  name: string;
  description: string;
  version: number;
}

export interface EditorSnapshot {
  workflow: OpenWorkflow | undefined;
  graph: Graph;
  dirty: boolean;
  canUndo: boolean;
  canRedo: boolean;
  clipboard: Fragment | undefined;
  /** The open workflow was deleted elsewhere (an action, another tab, MCP): only its draft is left. */
  deleted: boolean;
  /** A newer version of the open workflow was saved elsewhere while this page has a draft: its number. */
  newer: number | undefined;
  /** The newest change of the graph was an action's edit (the canvas brings what it places into view). */
  byAction: boolean;
}

export interface ApplyOptions {
  /** Consecutive operations of one group are one undo step. */
  group?: string | undefined;
  /** An action's edit (`ui_*`), not the person's. */
  byAction?: boolean;
}

const HISTORY_MAX = 200;
const EMPTY: Graph = { nodes: [], edges: [] };

export class EditorStore extends ExternalStore<EditorSnapshot> {
  #past: Graph[] = [];
  /** The group the newest undo step belongs to, while it may still grow. */
  #group: string | undefined;
  #future: Graph[] = [];
  #saved: Graph = EMPTY;
  /** Called after every change of the graph or the open workflow (persists the draft). */
  onChange: ((snapshot: EditorSnapshot) => void) | undefined;

  constructor() {
    super({
      workflow: undefined,
      graph: EMPTY,
      dirty: false,
      canUndo: false,
      canRedo: false,
      clipboard: undefined,
      deleted: false,
      newer: undefined,
      byAction: false,
    });
  }

  #set(next: Partial<EditorSnapshot>): void {
    const graph = next.graph ?? this.getSnapshot().graph;
    this.publish({
      ...this.getSnapshot(),
      byAction: false,
      ...next,
      dirty: graph !== this.#saved && JSON.stringify(graph) !== JSON.stringify(this.#saved),
      canUndo: this.#past.length > 0,
      canRedo: this.#future.length > 0,
    });
    this.onChange?.(this.getSnapshot());
  }

  /**
   * Opens a workflow; `draft` (an unsaved graph kept across a reload, and the version it was made on)
   * replaces the stored graph. A draft made on an older version than the stored one stays on that
   * version, the newer one said (`newer`), so a save never silently replaces it.
   */
  open(workflow: Workflow, draft?: { graph: Graph; version: number }): void {
    this.#group = undefined;
    this.#past = [];
    this.#future = [];
    this.#saved = workflow.graph;
    const { id, name, description } = workflow;
    const behind = draft !== undefined && draft.version > 0 && draft.version < workflow.version;
    this.#set({
      workflow: { id, name, description, version: behind ? draft.version : workflow.version },
      graph: draft?.graph ?? workflow.graph,
      deleted: false,
      newer: behind ? workflow.version : undefined,
    });
  }

  close(): void {
    this.#group = undefined;
    this.#past = [];
    this.#future = [];
    this.#saved = EMPTY;
    this.#set({ workflow: undefined, graph: EMPTY, deleted: false, newer: undefined });
  }

  /** Applies one document operation; a change becomes one undo step, or joins its group's step. */
  apply(op: DocumentOp, args: Record<string, unknown>, options: ApplyOptions = {}): OpResult {
    const result = applyOp(this.getSnapshot().graph, op, args);
    if (!result.ok) return result;
    if (op === "ui_copy") this.#set({ clipboard: result.value as Fragment });
    if (result.graph !== this.getSnapshot().graph) {
      const joins = options.group !== undefined && options.group === this.#group && this.#past.length > 0;
      if (!joins) this.#past = [...this.#past.slice(-HISTORY_MAX + 1), this.getSnapshot().graph];
      this.#group = options.group;
      this.#future = [];
      this.#set({ graph: result.graph, byAction: options.byAction ?? false });
    }
    return result;
  }

  /** The graph on screen becomes an undo step of its own (what comes next replaces it whole). */
  #step(): void {
    this.#group = undefined;
    this.#past = [...this.#past.slice(-HISTORY_MAX + 1), this.getSnapshot().graph];
    this.#future = [];
  }

  /** The whole graph replaced by another (an earlier version's): one undo step, an unsaved draft. */
  replace(graph: Graph): void {
    this.#step();
    this.#set({ graph });
  }

  /** Ends the open group: the next operation starts a new undo step even with the same group name. */
  endGroup(): void {
    this.#group = undefined;
  }

  undo(): void {
    this.#group = undefined;
    const previous = this.#past.at(-1);
    if (!previous) return;
    this.#past = this.#past.slice(0, -1);
    this.#future = [this.getSnapshot().graph, ...this.#future];
    this.#set({ graph: previous });
  }

  redo(): void {
    this.#group = undefined;
    const next = this.#future[0];
    if (!next) return;
    this.#future = this.#future.slice(1);
    this.#past = [...this.#past, this.getSnapshot().graph];
    this.#set({ graph: next });
  }

  /** Nodes copied in another tab (a paste brought them): this page's copy from now on. */
  copied(fragment: Fragment): void {
    this.#set({ clipboard: fragment });
  }

  /**
   * The open workflow was renamed or described (by an action or another tab): its title and description
   * follow; nothing else changes.
   */
  changedElsewhere(id: string, name: string, description: string | undefined): void {
    const open = this.getSnapshot().workflow;
    if (open?.id !== id) return;
    const described = description ?? open.description;
    if (open.name !== name || open.description !== described)
      this.#set({ workflow: { ...open, name, description: described } });
  }

  /** The open workflow was deleted elsewhere: the editor keeps its draft and says so. */
  deletedElsewhere(id: string): void {
    if (this.getSnapshot().workflow?.id === id && !this.getSnapshot().deleted) this.#set({ deleted: true });
  }

  /** After a rename or a new description here: the stored details and version; the graph, and any draft of it, stay. */
  markDetails(workflow: Workflow): void {
    const open = this.getSnapshot().workflow;
    if (open?.id !== workflow.id) return;
    const { name, description, version } = workflow;
    this.#set({ workflow: { ...open, name, description, version } });
  }

  /** After a successful save: the stored version and graph are now what the editor shows. */
  markSaved(workflow: Workflow): void {
    this.#saved = workflow.graph;
    const { id, name, description, version } = workflow;
    this.#set({ workflow: { id, name, description, version }, graph: workflow.graph, newer: undefined });
  }

  /**
   * A newer version saved elsewhere, shown in place of a clean canvas: one undo step when its graph
   * differs (Undo brings back what was shown, as a draft).
   */
  savedElsewhere(workflow: Workflow): void {
    if (this.getSnapshot().workflow?.id !== workflow.id) return;
    if (JSON.stringify(workflow.graph) !== JSON.stringify(this.getSnapshot().graph)) this.#step();
    this.markSaved(workflow);
  }

  /** A newer version was saved elsewhere while this page has a draft: the draft stays; the editor says so. */
  newerElsewhere(id: string, version: number): void {
    const { workflow, newer } = this.getSnapshot();
    if (workflow?.id === id && version > workflow.version && version !== newer) this.#set({ newer: version });
  }
}
