// openWorkflow(id?): a local mirror of a workflow graph (no id: the workflow open in the editor) with
// synchronous mutators that queue `ui_*` operations; commit() replays them in order through the `ui`
// facade (so every one passes the gate), maps pending edge ids to the real ones, and answers
// {ok, applied, nodes, edges}. On a failure it names the failing operation and keeps it and the rest
// queued, so the action can fix things and commit again.

const UI = "@nodetool-ai/sandbox-nodetool/ui";

function copy(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
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
      const node = g.nodes.get(this.#id);
      node.data = { ...node.data, ...copy(data) };
    });
    return this;
  }
  setTitle(title) {
    this.#mirror._queue("setNodeTitle", { node_id: this.#id, title: String(title) }, (g) => {
      g.nodes.get(this.#id).title = String(title);
    });
    return this;
  }
  moveTo(x, y) {
    this.#mirror._queue("moveNode", { node_id: this.#id, x: Number(x), y: Number(y) }, (g) => {
      g.nodes.get(this.#id).position = { x: Number(x), y: Number(y) };
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
  #edgeIds = new Map();
  nodes = new Map();
  edges = new Map();

  constructor(ui, workflowId, graph) {
    this.#ui = ui;
    this.#workflowId = workflowId;
    this.#load(graph);
  }

  #load(graph) {
    this.nodes = new Map((graph.nodes ?? []).map((n) => [n.id, copy(n)]));
    this.edges = new Map((graph.edges ?? []).map((e) => [e.id, copy(e)]));
  }

  _node(id) {
    const node = this.nodes.get(id);
    if (!node)
      throw new Error(
        `openWorkflow: there is no node "${id}" (nodes: ${[...this.nodes.keys()].join(", ") || "none"}).`,
      );
    return node;
  }

  _queue(method, args, applyLocally) {
    applyLocally(this);
    const full = this.#workflowId === undefined ? args : { workflow_id: this.#workflowId, ...args };
    this.#ops.push({ method, args: full });
  }

  addNode(id, type, data, position) {
    if (this.nodes.has(id)) throw new Error(`openWorkflow: a node "${id}" already exists.`);
    const args = { node_id: String(id), node_type: String(type), data: copy(data ?? {}) };
    if (position) args.position = { x: Number(position.x), y: Number(position.y) };
    this._queue("addNode", args, (g) => {
      g.nodes.set(args.node_id, {
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
      source: String(source),
      source_handle: String(sourceHandle),
      target: String(target),
      target_handle: String(targetHandle),
    };
    this._queue("connect", args, (g) => {
      g.edges.set(pendingId, {
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
    this._queue("deleteNode", { node_id: String(id) }, (g) => {
      g.nodes.delete(id);
      for (const [edgeId, edge] of g.edges) if (edge.source === id || edge.target === id) g.edges.delete(edgeId);
    });
  }

  removeEdge(id) {
    if (!this.edges.has(id)) throw new Error(`openWorkflow: there is no edge "${id}".`);
    this._queue("deleteEdge", { edge_id: String(id) }, (g) => {
      g.edges.delete(id);
    });
  }

  node(id) {
    this._node(id);
    return new NodeHandle(this, id);
  }

  /** The queued operations, in the order commit() will replay them. */
  pending() {
    return this.#ops.map((op) => ({ operation: op.method, args: copy(op.args) }));
  }

  async commit() {
    let applied = 0;
    while (this.#ops.length > 0) {
      const op = this.#ops[0];
      const args = copy(op.args);
      if (typeof args.edge_id === "string" && this.#edgeIds.has(args.edge_id))
        args.edge_id = this.#edgeIds.get(args.edge_id);
      try {
        const result = await this.#ui[op.method](args);
        if (op.pendingEdgeId && result && typeof result.edge_id === "string")
          this.#edgeIds.set(op.pendingEdgeId, result.edge_id);
      } catch (error) {
        return {
          ok: false,
          applied,
          failed: {
            operation: op.method,
            args,
            error: { code: error?.code ?? "capability_failed", message: String(error?.message ?? error) },
          },
          pending: this.pending(),
        };
      }
      this.#ops.shift();
      applied++;
    }
    const graph = await this.#ui.getGraph(this.#workflowId === undefined ? {} : { workflow_id: this.#workflowId });
    this.#load(graph);
    return { ok: true, applied, nodes: [...this.nodes.values()], edges: [...this.edges.values()] };
  }
}

export async function openWorkflow(id) {
  let ui;
  try {
    ({ ui } = await import(UI));
  } catch {
    throw new Error("openWorkflow needs the ui module, which is not mounted for this session.");
  }
  const workflowId = id === undefined || id === null ? undefined : String(id);
  const graph = await ui.getGraph(workflowId === undefined ? {} : { workflow_id: workflowId });
  return new WorkflowMirror(ui, workflowId, graph);
}
