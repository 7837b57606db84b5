/**
 * The React Flow canvas over the editor store. React Flow keeps transient state (drag positions,
 * selection) locally; every finished hand edit becomes document operations on the store, made as the
 * user (audited, never prompted) through the controller. A connection whose handle types do not fit is
 * refused while it is dragged and, when dropped, says why; a connection dropped on empty canvas opens
 * the palette with the node types that fit. When an action adds nodes outside the view, the view fits.
 */
import {
  applyNodeChanges,
  Background,
  type Connection,
  ControlButton,
  Controls,
  type Edge,
  type EdgeChange,
  type FinalConnectionState,
  MiniMap,
  type NodeChange,
  ReactFlow,
  useReactFlow,
} from "@xyflow/react";
import {
  type KeyboardEvent as ReactKeyboardEvent,
  type MouseEvent as ReactMouseEvent,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { type Graph, samePosition } from "../../../shared/graph/document.ts";
import { isNote } from "../../../shared/graph/node-types.ts";
import type { DocumentOp } from "../../../shared/graph/ops.ts";
import type { JobEntry } from "../jobs/jobs-store.ts";
import { useStableHandlers } from "../stable-handlers.ts";
import { useActionChanges } from "./action-changes.ts";
import type { MenuRequest } from "./CanvasMenu.tsx";
import { edgesOf } from "./flow-edges.ts";
import { flowNodes } from "./flow-nodes.ts";
import { connectionRefusal, handleType } from "./handles.ts";
import { type NoteEditing, NoteEditingProvider } from "./NoteNode.tsx";
import { fitOnceMeasured } from "./view.ts";
import { type WorkflowFlowNode, WorkflowNode } from "./WorkflowNode.tsx";

const nodeTypes = { workflow: WorkflowNode };
const FIT_VIEW = { maxZoom: 1 };
const PRO_OPTIONS = { hideAttribution: true };

/** Where the palette opens: pixels inside the canvas, the flow position for the new node, and what it connects to. */
export interface PaletteRequest {
  at: { x: number; y: number };
  /** Where the new node goes; absent: beside the others. */
  flow?: { x: number; y: number } | undefined;
  from?: { nodeId: string; handle: string; side: "source" | "target" } | undefined;
}

export interface CanvasProps {
  graph: Graph;
  job: JobEntry | undefined;
  /** When it changes: these nodes become the selection (pasted nodes). */
  select?: readonly string[] | undefined;
  onEdits(edits: { op: DocumentOp; args: Record<string, unknown> }[]): void;
  onSelection(ids: string[]): void;
  onPalette(request: PaletteRequest): void;
  /** Notes written in place (a double-click on one, or Enter on it). */
  notes: NoteEditing;
  onMessage(message: string | undefined): void;
  /** The newest change of the graph was an action's (its moved nodes count as landing too). */
  byAction?: boolean;
  /** The `?` among the canvas controls: the list of keyboard shortcuts. */
  onShortcuts(): void;
  /** A right-click (or the Menu key, Shift+F10): what it was on is the selection by then. */
  onMenu(request: MenuRequest): void;
}

export function Canvas(props: CanvasProps) {
  const { graph, job, select, onEdits, onSelection, onPalette, notes, onMessage, byAction, onShortcuts, onMenu } =
    props;
  const flow = useReactFlow<WorkflowFlowNode, Edge>();
  const wrapper = useRef<HTMLElement>(null);
  const changed = useActionChanges(graph, byAction);
  const fromGraph = useCallback(
    (g: Graph, previous: WorkflowFlowNode[] = []) => flowNodes(g, previous, job, changed),
    [job, changed],
  );
  const [nodes, setNodes] = useState<WorkflowFlowNode[]>(() => fromGraph(graph));
  useEffect(() => setNodes((previous) => fromGraph(graph, previous)), [graph, fromGraph]);
  useEffect(() => {
    if (select)
      setNodes((current) =>
        current.map((n) => (n.selected === select.includes(n.id) ? n : { ...n, selected: !n.selected })),
      );
  }, [select]);

  // Nodes landed where the view does not show them: fit the view to the whole graph.
  const known = useRef(new Map(graph.nodes.map((n) => [n.id, n.position])));
  useEffect(() => {
    const before = known.current;
    known.current = new Map(graph.nodes.map((n) => [n.id, n.position]));
    // The person's own adds land where they look (double-click) or beside the others (Add node), and
    // their drags go where they mean; an action's adds and moves (its graph laid out) can land anywhere.
    // Either way, new nodes outside the view bring the whole graph into it.
    const added = graph.nodes.filter((n) => {
      const was = before.get(n.id);
      return !was || (byAction && !samePosition(was, n.position));
    });
    if (added.length === 0 || !wrapper.current) return;
    const { x, y, zoom } = flow.getViewport();
    const box = wrapper.current.getBoundingClientRect();
    const view = { left: -x / zoom, top: -y / zoom, right: (box.width - x) / zoom, bottom: (box.height - y) / zoom };
    const outside = added.some(
      (n) =>
        n.position.x < view.left ||
        n.position.y < view.top ||
        n.position.x + 160 > view.right ||
        n.position.y + 60 > view.bottom,
    );
    if (outside)
      fitOnceMeasured(
        flow,
        added.map((n) => n.id),
      );
  }, [graph, flow, byAction]);

  // The selected connections (clicked, or focused and Entered): Delete removes them. The edges
  // themselves follow the graph as it is drawn (an action's nodes and their edges arrive together).
  const [chosenEdges, setChosenEdges] = useState<ReadonlySet<string>>(new Set());
  // An unchanged edge keeps its object (flow-edges.ts).
  const drawnEdges = useRef<Edge[]>([]);
  const graphEdges = graph.edges;
  const edges = useMemo(() => {
    drawnEdges.current = edgesOf(graphEdges, chosenEdges, drawnEdges.current);
    return drawnEdges.current;
  }, [graphEdges, chosenEdges]);
  // A deleted connection is no longer chosen (a later one given its id must not come back selected).
  useEffect(
    () =>
      setChosenEdges((now) => {
        const live = [...now].filter((id) => graphEdges.some((e) => e.id === id));
        return live.length === now.size ? now : new Set(live);
      }),
    [graphEdges],
  );
  const onEdgesChange = useCallback((changes: EdgeChange[]) => {
    const picks = changes.filter((c) => c.type === "select");
    if (picks.length === 0) return;
    setChosenEdges((now) => {
      const next = new Set(now);
      for (const pick of picks) {
        if (pick.selected) next.add(pick.id);
        else next.delete(pick.id);
      }
      return next;
    });
  }, []);

  // Moves with the arrow keys (a focused, selected node) end as no drag does: they are recorded once
  // the keys rest, as one step. A drag's own last position change is already in the graph by then.
  const latest = useRef({ graph, onEdits });
  latest.current = { graph, onEdits };
  const keyMoves = useRef(new Map<string, { x: number; y: number }>());
  const keyTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const flushKeyMoves = useCallback(() => {
    const { graph: now, onEdits: edit } = latest.current;
    const moves = [...keyMoves.current]
      .map(([id, p]) => ({ id, x: Math.round(p.x), y: Math.round(p.y) }))
      .filter(({ id, x, y }) => {
        const at = now.nodes.find((n) => n.id === id)?.position;
        return at !== undefined && (Math.round(at.x) !== x || Math.round(at.y) !== y);
      })
      .map(({ id, x, y }) => ({ op: "ui_move_node" as const, args: { node_id: id, x, y } }));
    keyMoves.current.clear();
    if (moves.length > 0) edit(moves);
  }, []);
  useEffect(() => () => clearTimeout(keyTimer.current), []);

  const onNodesChange = useCallback(
    (changes: NodeChange<WorkflowFlowNode>[]) => {
      for (const change of changes) {
        if (change.type === "position" && change.position && change.dragging === false) {
          keyMoves.current.set(change.id, change.position);
          clearTimeout(keyTimer.current);
          keyTimer.current = setTimeout(flushKeyMoves, 400);
        }
      }
      // Removals go through onDelete (document operations); the rest is transient view state.
      setNodes((current) =>
        applyNodeChanges(
          changes.filter((c) => c.type !== "remove"),
          current,
        ),
      );
    },
    [flushKeyMoves],
  );

  /** A point on screen as what opens there needs it: pixels inside the canvas, and the flow position. */
  const placeOf = (point: { clientX: number; clientY: number }) => {
    const box = wrapper.current?.getBoundingClientRect();
    if (!box) return undefined;
    return {
      at: { x: point.clientX - box.left, y: point.clientY - box.top },
      flow: flow.screenToFlowPosition({ x: point.clientX, y: point.clientY }),
    };
  };

  const onConnectEnd = (event: MouseEvent | TouchEvent, state: FinalConnectionState) => {
    if (!state.fromNode || !state.fromHandle) return;
    const from = { nodeId: state.fromNode.id, handle: state.fromHandle.id ?? "", side: state.fromHandle.type };
    if (state.toHandle && state.toNode) {
      if (state.isValid) return;
      const source = from.side === "source" ? from : { nodeId: state.toNode.id, handle: state.toHandle.id ?? "" };
      const target = from.side === "source" ? { nodeId: state.toNode.id, handle: state.toHandle.id ?? "" } : from;
      onMessage(
        connectionRefusal(graph, {
          source: source.nodeId,
          sourceHandle: source.handle,
          target: target.nodeId,
          targetHandle: target.handle,
        }),
      );
      return;
    }
    if (state.toNode) return;
    const point = "changedTouches" in event ? event.changedTouches[0] : event;
    const place = point && placeOf(point);
    if (place) onPalette({ ...place, from });
  };

  // A context menu acts on the selection: what it opens on becomes the selection unless it is in it
  // (a connection is always alone: its menu only deletes it).
  const selectOnly = (nodeIds: readonly string[], edgeIds: readonly string[]) => {
    setNodes((current) => current.map((n) => ({ ...n, selected: nodeIds.includes(n.id) })));
    setChosenEdges(new Set(edgeIds));
  };
  const openMenu = (
    kind: MenuRequest["kind"],
    point: { clientX: number; clientY: number },
    on: readonly string[] = nodes.filter((n) => n.selected).map((n) => n.id),
  ) => {
    const place = placeOf(point);
    if (place) onMenu({ kind, nodes: on, ...place });
  };
  const menuOnNode = (id: string, point: { clientX: number; clientY: number }) => {
    if (nodes.find((n) => n.id === id)?.selected) return openMenu("node", point);
    selectOnly([id], []);
    openMenu("node", point, [id]);
  };
  const menuOnEdge = (id: string, point: { clientX: number; clientY: number }) => {
    selectOnly([], [id]);
    openMenu("edge", point, []);
  };
  // From the keyboard: the Menu key or Shift+F10 on a focused node or connection, or on the canvas.
  const onMenuKey = (event: ReactKeyboardEvent) => {
    const target = event.target as Element;
    // Enter on a focused note writes it (on another node, React Flow's Enter selects it).
    if (event.key === "Enter" && !event.ctrlKey && !event.metaKey && target.classList.contains("react-flow__node")) {
      const id = target.getAttribute("data-id");
      if (id && isNote(graph.nodes.find((n) => n.id === id)?.type ?? "")) {
        event.preventDefault();
        notes.start(id);
      }
      return;
    }
    if (event.key !== "ContextMenu" && !(event.key === "F10" && event.shiftKey)) return;
    const element = target.closest(".react-flow__node, .react-flow__edge") ?? wrapper.current;
    if (!element) return;
    event.preventDefault();
    const r = element.getBoundingClientRect();
    const point = { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
    const id = element.getAttribute("data-id");
    if (element.classList.contains("react-flow__node") && id) menuOnNode(id, point);
    else if (element.classList.contains("react-flow__edge") && id) menuOnEdge(id, point);
    else openMenu("pane", point);
  };

  // The handlers React Flow hands to every node and connection keep their identity across renders
  // (each calls this render's own): a new function each render redrew all of them on every keystroke
  // (and React Flow calls onSelectionChange from an effect that depends on it).
  const flowHandlers = useStableHandlers({
    onSelectionChange: ({ nodes: chosen }: { nodes: WorkflowFlowNode[] }) => onSelection(chosen.map((n) => n.id)),
    onNodeDragStop: (_event: unknown, _node: unknown, dragged: WorkflowFlowNode[]) => {
      const moves = dragged
        .filter((node) => {
          const before = graph.nodes.find((n) => n.id === node.id)?.position;
          return !before || !samePosition(before, node.position);
        })
        .map((node) => ({
          op: "ui_move_node" as const,
          args: { node_id: node.id, x: Math.round(node.position.x), y: Math.round(node.position.y) },
        }));
      if (moves.length > 0) onEdits(moves);
    },
    onDelete: ({ nodes: deletedNodes, edges: deletedEdges }: { nodes: WorkflowFlowNode[]; edges: Edge[] }) => {
      const gone = new Set(deletedNodes.map((n) => n.id));
      onEdits([
        ...deletedNodes.map((node) => ({ op: "ui_delete_node" as const, args: { node_id: node.id } })),
        // Edges of a deleted node went with it; only free-standing edge deletions remain.
        ...deletedEdges
          .filter((edge) => !gone.has(edge.source) && !gone.has(edge.target))
          .map((edge) => ({ op: "ui_delete_edge" as const, args: { edge_id: edge.id } })),
      ]);
    },
    isValidConnection: (c: Edge | Connection) => connectionRefusal(graph, c) === undefined,
    onConnect: (connection: Connection) => {
      onMessage(undefined);
      onEdits([
        {
          op: "ui_connect_nodes",
          args: {
            source: connection.source,
            source_handle: connection.sourceHandle ?? "output",
            target: connection.target,
            target_handle: connection.targetHandle ?? "",
          },
        },
      ]);
    },
    onConnectEnd,
    onNodeContextMenu: (event: ReactMouseEvent, node: WorkflowFlowNode) => {
      event.preventDefault();
      menuOnNode(node.id, event);
    },
    onSelectionContextMenu: (event: ReactMouseEvent) => {
      event.preventDefault();
      openMenu("node", event);
    },
    onEdgeContextMenu: (event: ReactMouseEvent, edge: Edge) => {
      event.preventDefault();
      menuOnEdge(edge.id, event);
    },
    onPaneContextMenu: (event: ReactMouseEvent | MouseEvent) => {
      event.preventDefault();
      openMenu("pane", event);
    },
  });

  return (
    <section
      className="canvas"
      aria-label="Workflow canvas"
      tabIndex={-1}
      ref={wrapper}
      onKeyDown={onMenuKey}
      onDoubleClick={(event) => {
        const target = event.target as HTMLElement;
        const noteId = target.closest(".react-flow__node")?.getAttribute("data-id");
        const note = noteId ? graph.nodes.find((n) => n.id === noteId) : undefined;
        if (note && isNote(note.type)) notes.start(note.id);
        if (!target.classList.contains("react-flow__pane")) return;
        const place = placeOf(event);
        if (place) onPalette(place);
      }}
    >
      <NoteEditingProvider value={notes}>
        <ReactFlow<WorkflowFlowNode, Edge>
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          {...flowHandlers}
          deleteKeyCode={null}
          zoomOnDoubleClick={false}
          minZoom={0.1}
          fitView
          fitViewOptions={FIT_VIEW}
          proOptions={PRO_OPTIONS}
        >
          <Background />
          <Controls>
            <ControlButton onClick={onShortcuts} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">
              ?
            </ControlButton>
          </Controls>
          <MiniMap pannable zoomable ariaLabel="Minimap of the workflow" />
        </ReactFlow>
      </NoteEditingProvider>
      {graph.nodes.length === 0 ? (
        <p className="canvas-empty">
          Double-click the canvas or press Ctrl/Cmd+K to add a node, or ask the agent to build the workflow.
        </p>
      ) : null}
    </section>
  );
}

/** The type of the handle a palette request connects from (for filtering the palette). */
export function requestHandleType(graph: Graph, request: PaletteRequest) {
  return request.from ? handleType(graph, request.from.nodeId, request.from.handle, request.from.side) : undefined;
}
