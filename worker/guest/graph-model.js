// openWorkflow(id?): a local mirror of a workflow graph (no id: the workflow open in the editor) with
// synchronous mutators that queue `ui_*` operations; commit() replays them in order through the `ui`
// facade (so every one passes the gate), maps pending edge ids to the real ones, and answers
// {ok, applied, nodes, edges}. On a failure it names the failing operation and keeps it and the rest
// queued, so the action can fix things and commit again. Builtins come from intrinsics.js, and copies
// are made by the value encoder (no JSON text, no toJSON the action may have planted).

import {
  ArrayIsArray,
  ArrayPrototypeJoin,
  ArrayPrototypeShift,
  append,
  defineField,
  ErrorCtor,
  MapCtor,
  MapPrototypeDelete,
  MapPrototypeForEach,
  MapPrototypeGet,
  MapPrototypeHas,
  MapPrototypeSet,
  mapKeys,
  mapValues,
  NumberCtor,
  StringCtor,
} from "nodetool:intrinsics";

import { clone as copy } from "nodetool:values";

const UI = "@nodetool-ai/sandbox-nodetool/ui";

/** A Map of copies of `list`'s items by their id (no iterator, no Array.prototype.map). */
function byId(list) {
  const out = new MapCtor();
  if (!ArrayIsArray(list)) return out;
  for (let i = 0; i < list.length; i++) MapPrototypeSet(out, list[i].id, copy(list[i]));
  return out;
}

class NodeHandle {
  #mirror;
  #id;
  constructor(mirror, id) {
    this.#mirror = mirror;
    this.#id = id;
  }
  get id() {
    return this.#id;
  }
  get data() {
    return copy(this.#mirror._node(this.#id).data);
  }
  set(data) {
    this.#mirror._queue("updateNodeData", { node_id: this.#id, data: copy(data) }, (g) => {
      const node = MapPrototypeGet(g.nodes, this.#id);
      node.data = { ...node.data, ...copy(data) };
    });
    return this;
  }
  setTitle(title) {
    this.#mirror._queue("setNodeTitle", { node_id: this.#id, title: StringCtor(title) }, (g) => {
      MapPrototypeGet(g.nodes, this.#id).title = StringCtor(title);
    });
    return this;
  }
  moveTo(x, y) {
    this.#mirror._queue("moveNode", { node_id: this.#id, x: NumberCtor(x), y: NumberCtor(y) }, (g) => {
      MapPrototypeGet(g.nodes, this.#id).position = { x: NumberCtor(x), y: NumberCtor(y) };
    });
    return this;
  }
  remove() {
    this.#mirror.removeNode(this.#id);
  }
}

class WorkflowMirror {
  #ui;
  #workflowId;
  #ops = [];
  #pendingEdges = 0;
  #edgeIds = new MapCtor();
  nodes = new MapCtor();
  edges = new MapCtor();

  constructor(ui, workflowId, graph) {
    this.#ui = ui;
    this.#workflowId = workflowId;
    this.#load(graph);
  }

  #load(graph) {
    this.nodes = byId(graph.nodes);
    this.edges = byId(graph.edges);
  }

  _node(id) {
    const node = MapPrototypeGet(this.nodes, id);
    if (!node)
      throw new ErrorCtor(
        `openWorkflow: there is no node "${id}" (nodes: ${ArrayPrototypeJoin(mapKeys(this.nodes), ", ") || "none"}).`,
      );
    return node;
  }

  _queue(method, args, applyLocally) {
    applyLocally(this);
    const full = this.#workflowId === undefined ? args : { workflow_id: this.#workflowId, ...args };
    append(this.#ops, { method, args: full });
  }

  addNode(id, type, data, position) {
    if (MapPrototypeHas(this.nodes, id)) throw new ErrorCtor(`openWorkflow: a node "${id}" already exists.`);
    const args = { node_id: StringCtor(id), node_type: StringCtor(type), data: copy(data ?? {}) };
    if (position) defineField(args, "position", { x: NumberCtor(position.x), y: NumberCtor(position.y) });
    this._queue("addNode", args, (g) => {
      MapPrototypeSet(g.nodes, args.node_id, {
        id: args.node_id,
        type: args.node_type,
        data: args.data,
        position: args.position ?? { x: 0, y: 0 },
      });
    });
    return new NodeHandle(this, args.node_id);
  }

  connect(source, sourceHandle, target, targetHandle) {
    this._node(source);
    this._node(target);
    const pendingId = `pending_edge_${++this.#pendingEdges}`;
    const args = {
      source: StringCtor(source),
      source_handle: StringCtor(sourceHandle),
      target: StringCtor(target),
      target_handle: StringCtor(targetHandle),
    };
    this._queue("connect", args, (g) => {
      MapPrototypeSet(g.edges, pendingId, {
        id: pendingId,
        source: args.source,
        sourceHandle: args.source_handle,
        target: args.target,
        targetHandle: args.target_handle,
      });
    });
    this.#ops[this.#ops.length - 1].pendingEdgeId = pendingId;
    return pendingId;
  }

  removeNode(id) {
    this._node(id);
    this._queue("deleteNode", { node_id: StringCtor(id) }, (g) => {
      MapPrototypeDelete(g.nodes, id);
      MapPrototypeForEach(g.edges, (edge, edgeId) => {
        if (edge.source === id || edge.target === id) MapPrototypeDelete(g.edges, edgeId);
      });
    });
  }

  removeEdge(id) {
    if (!MapPrototypeHas(this.edges, id)) throw new ErrorCtor(`openWorkflow: there is no edge "${id}".`);
    this._queue("deleteEdge", { edge_id: StringCtor(id) }, (g) => {
      MapPrototypeDelete(g.edges, id);
    });
  }

  node(id) {
    this._node(id);
    return new NodeHandle(this, id);
  }

  /** The queued operations, in the order commit() will replay them. */
  pending() {
    const out = [];
    for (let i = 0; i < this.#ops.length; i++) {
      append(out, { operation: this.#ops[i].method, args: copy(this.#ops[i].args) });
    }
    return out;
  }

  async commit() {
    let applied = 0;
    while (this.#ops.length > 0) {
      const op = this.#ops[0];
      const args = copy(op.args);
      if (typeof args.edge_id === "string" && MapPrototypeHas(this.#edgeIds, args.edge_id))
        args.edge_id = MapPrototypeGet(this.#edgeIds, args.edge_id);
      try {
        const result = await this.#ui[op.method](args);
        if (op.pendingEdgeId && result && typeof result.edge_id === "string")
          MapPrototypeSet(this.#edgeIds, op.pendingEdgeId, result.edge_id);
      } catch (error) {
        return {
          ok: false,
          applied,
          failed: {
            operation: op.method,
            args,
            error: { code: error?.code ?? "capability_failed", message: StringCtor(error?.message ?? error) },
          },
          pending: this.pending(),
        };
      }
      ArrayPrototypeShift(this.#ops);
      applied++;
    }
    const graph = await this.#ui.getGraph(this.#workflowId === undefined ? {} : { workflow_id: this.#workflowId });
    this.#load(graph);
    return { ok: true, applied, nodes: mapValues(this.nodes), edges: mapValues(this.edges) };
  }
}

export async function openWorkflow(id) {
  let ui;
  try {
    ({ ui } = await import(UI));
  } catch {
    throw new ErrorCtor("openWorkflow needs the ui module, which is not mounted for this session.");
  }
  const workflowId = id === undefined || id === null ? undefined : StringCtor(id);
  const graph = await ui.getGraph(workflowId === undefined ? {} : { workflow_id: workflowId });
  return new WorkflowMirror(ui, workflowId, graph);
}
