/**
 * The React Flow canvas over the editor store. React Flow keeps transient state (drag positions,
 * selection) locally; every finished hand edit becomes one document operation on the store, made as
 * the user (audited, never prompted) through `onUserEdit`.
 */
import {
  applyNodeChanges,
  Background,
  type Connection,
  Controls,
  type Edge,
  type NodeChange,
  ReactFlow,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useState } from "react";
import type { Graph } from "../../../shared/graph/document.ts";
import type { DocumentOp } from "../../../shared/graph/ops.ts";
import { type WorkflowFlowNode, WorkflowNode } from "./WorkflowNode.tsx";

const nodeTypes = { workflow: WorkflowNode };

export interface CanvasProps {
  graph: Graph;
  onUserEdit(op: DocumentOp, args: Record<string, unknown>): void;
}

export function Canvas({ graph, onUserEdit }: CanvasProps) {
  const rename = useCallback(
    (id: string, title: string) => onUserEdit("ui_set_node_title", { node_id: id, title }),
    [onUserEdit],
  );
  const fromGraph = useCallback(
    (g: Graph, previous: WorkflowFlowNode[] = []): WorkflowFlowNode[] =>
      g.nodes.map((n) => ({
        id: n.id,
        type: "workflow",
        position: n.position,
        selected: previous.find((p) => p.id === n.id)?.selected ?? false,
        data: { type: n.type, title: n.title, values: n.data, onRename: rename },
      })),
    [rename],
  );
  const [nodes, setNodes] = useState<WorkflowFlowNode[]>(() => fromGraph(graph));
  useEffect(() => setNodes((previous) => fromGraph(graph, previous)), [graph, fromGraph]);

  const edges = useMemo<Edge[]>(
    () =>
      graph.edges.map((e) => ({
        id: e.id,
        source: e.source,
        sourceHandle: e.sourceHandle,
        target: e.target,
        targetHandle: e.targetHandle,
      })),
    [graph],
  );

  const onNodesChange = useCallback((changes: NodeChange<WorkflowFlowNode>[]) => {
    // Removals go through onNodesDelete (one document operation each); the rest is transient view state.
    setNodes((current) =>
      applyNodeChanges(
        changes.filter((c) => c.type !== "remove"),
        current,
      ),
    );
  }, []);

  return (
    <section className="canvas" aria-label="Workflow canvas">
      <ReactFlow<WorkflowFlowNode, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onNodeDragStop={(_event, _node, dragged) => {
          for (const node of dragged) {
            const before = graph.nodes.find((n) => n.id === node.id)?.position;
            if (!before || before.x !== node.position.x || before.y !== node.position.y) {
              onUserEdit("ui_move_node", {
                node_id: node.id,
                x: Math.round(node.position.x),
                y: Math.round(node.position.y),
              });
            }
          }
        }}
        onDelete={({ nodes: deletedNodes, edges: deletedEdges }) => {
          const gone = new Set(deletedNodes.map((n) => n.id));
          for (const node of deletedNodes) onUserEdit("ui_delete_node", { node_id: node.id });
          // Edges of a deleted node went with it; only free-standing edge deletions remain.
          for (const edge of deletedEdges) {
            if (!gone.has(edge.source) && !gone.has(edge.target)) onUserEdit("ui_delete_edge", { edge_id: edge.id });
          }
        }}
        onConnect={(connection: Connection) =>
          onUserEdit("ui_connect_nodes", {
            source: connection.source,
            source_handle: connection.sourceHandle ?? "output",
            target: connection.target,
            target_handle: connection.targetHandle ?? "",
          })
        }
        deleteKeyCode={["Backspace", "Delete"]}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls />
      </ReactFlow>
    </section>
  );
}
