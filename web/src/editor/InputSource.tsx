/**
 * Where a connectable input's value comes from, chosen without dragging a handle (keyboard users,
 * small screens): a select of the other nodes' outputs that fit it (the canvas's own rule,
 * `connectionRefusal`), or, once connected, the edge it has and `Disconnect`. Each choice is one
 * undoable edit of the user's; focus moves to the control that replaces the one just used.
 */
import { useState } from "react";
import type { Graph, GraphNode } from "../../../shared/graph/document.ts";
import { nodeLabel } from "../../../shared/graph/node-types.ts";
import { connectionRefusal, outputHandles } from "./handles.ts";

export interface InputSourceProps {
  graph: Graph;
  node: GraphNode;
  input: string;
  onEdit(op: "ui_connect_nodes" | "ui_delete_edge", args: Record<string, unknown>): void;
}

const connectId = (input: string) => `connect-${input}`;
const disconnectId = (input: string) => `disconnect-${input}`;

/** Focus the control that took the used one's place, once React has drawn it. */
function focusSoon(id: string): void {
  requestAnimationFrame(() => document.getElementById(id)?.focus());
}

export function InputSource({ graph, node, input, onEdit }: InputSourceProps) {
  const [choice, setChoice] = useState("");
  const edge = graph.edges.find((e) => e.target === node.id && e.targetHandle === input);
  if (edge) {
    const source = graph.nodes.find((n) => n.id === edge.source);
    return (
      <p className="input-source">
        <span className="status">
          connected from {edge.source}.{edge.sourceHandle}
          {source ? ` (${nodeLabel(source)})` : ""}
        </span>{" "}
        <button
          type="button"
          id={disconnectId(input)}
          aria-label={`Disconnect ${input}`}
          onClick={() => {
            onEdit("ui_delete_edge", { edge_id: edge.id });
            focusSoon(connectId(input));
          }}
        >
          Disconnect
        </button>
      </p>
    );
  }
  const fits = graph.nodes.flatMap((from) =>
    outputHandles(from.type)
      .filter(
        (h) =>
          connectionRefusal(graph, { source: from.id, sourceHandle: h.name, target: node.id, targetHandle: input }) ===
          undefined,
      )
      .map((h) => ({
        value: `${from.id}.${h.name}`,
        source: from.id,
        handle: h.name,
        text: `${from.id}.${h.name} (${nodeLabel(from)})`,
      })),
  );
  if (fits.length === 0) return null;
  const connect = () => {
    const chosen = fits.find((fit) => fit.value === choice);
    if (!chosen) return;
    onEdit("ui_connect_nodes", {
      source: chosen.source,
      source_handle: chosen.handle,
      target: node.id,
      target_handle: input,
    });
    setChoice("");
    focusSoon(disconnectId(input));
  };
  // A select that connected on change would connect on the first arrow key (Chrome changes a closed
  // select's value with the arrows): the choice waits for `Connect`, or Enter in the select.
  return (
    <p className="input-source">
      <select
        id={connectId(input)}
        aria-label={`Connect ${input} from`}
        value={choice}
        onChange={(event) => setChoice(event.target.value)}
        onKeyDown={(event) => {
          if (event.key !== "Enter" || !choice) return;
          event.preventDefault();
          connect();
        }}
      >
        <option value="">or connect…</option>
        {fits.map((fit) => (
          <option key={fit.value} value={fit.value}>
            {fit.text}
          </option>
        ))}
      </select>
      <button type="button" aria-label={`Connect ${input}`} disabled={!choice} onClick={connect}>
        Connect
      </button>
    </p>
  );
}
