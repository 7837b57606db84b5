/**
 * The open workflow in the page: its graph, undo/redo history, dirty flag and clipboard. Agent edits
 * (`ui_*`, after the server authorised them) and hand edits go through the same shared document
 * operations, so both are visible at once, undoable, and an unsaved draft until Save.
 */
import type { Graph, Workflow } from "../../../shared/graph/document.ts";
import { applyOp, type DocumentOp, type Fragment, type OpResult } from "../../../shared/graph/ops.ts";

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
}

const HISTORY_MAX = 200;
const EMPTY: Graph = { nodes: [], edges: [] };

export class EditorStore {
  #snapshot: EditorSnapshot = {
    workflow: undefined,
    graph: EMPTY,
    dirty: false,
    canUndo: false,
    canRedo: false,
    clipboard: undefined,
  };
  #past: Graph[] = [];
  #future: Graph[] = [];
  #saved: Graph = EMPTY;
  readonly #listeners = new Set<() => void>();
  /** Called after every change of the graph or the open workflow (persists the draft). */
  onChange: ((snapshot: EditorSnapshot) => void) | undefined;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  getSnapshot = (): EditorSnapshot => this.#snapshot;

  #set(next: Partial<EditorSnapshot>): void {
    const graph = next.graph ?? this.#snapshot.graph;
    this.#snapshot = {
      ...this.#snapshot,
      ...next,
      dirty: graph !== this.#saved && JSON.stringify(graph) !== JSON.stringify(this.#saved),
      canUndo: this.#past.length > 0,
      canRedo: this.#future.length > 0,
    };
    for (const listener of this.#listeners) listener();
    this.onChange?.(this.#snapshot);
  }

  /** Opens a workflow; `draft` (an unsaved graph kept across a reload) replaces the stored graph. */
  open(workflow: Workflow, draft?: Graph): void {
    this.#past = [];
    this.#future = [];
    this.#saved = workflow.graph;
    const { id, name, description, version } = workflow;
    this.#set({ workflow: { id, name, description, version }, graph: draft ?? workflow.graph });
  }

  close(): void {
    this.#past = [];
    this.#future = [];
    this.#saved = EMPTY;
    this.#set({ workflow: undefined, graph: EMPTY });
  }

  /** Applies one document operation; a change becomes one undo step. */
  apply(op: DocumentOp, args: Record<string, unknown>): OpResult {
    const result = applyOp(this.#snapshot.graph, op, args);
    if (!result.ok) return result;
    if (op === "ui_copy") this.#set({ clipboard: result.value as Fragment });
    if (result.graph !== this.#snapshot.graph) {
      this.#past = [...this.#past.slice(-HISTORY_MAX + 1), this.#snapshot.graph];
      this.#future = [];
      this.#set({ graph: result.graph });
    }
    return result;
  }

  undo(): void {
    const previous = this.#past.at(-1);
    if (!previous) return;
    this.#past = this.#past.slice(0, -1);
    this.#future = [this.#snapshot.graph, ...this.#future];
    this.#set({ graph: previous });
  }

  redo(): void {
    const next = this.#future[0];
    if (!next) return;
    this.#future = this.#future.slice(1);
    this.#past = [...this.#past, this.#snapshot.graph];
    this.#set({ graph: next });
  }

  /** After a successful save: the stored version and graph are now what the editor shows. */
  markSaved(workflow: Workflow): void {
    this.#saved = workflow.graph;
    const { id, name, description, version } = workflow;
    this.#set({ workflow: { id, name, description, version }, graph: workflow.graph });
  }
}
