/** One node on the canvas: its title (double-click or Enter to rename), its type, typed input and output handles. */
import { Handle, type Node, type NodeProps, Position } from "@xyflow/react";
import { useState } from "react";
import { findNodeType, templateInputs } from "../../../shared/graph/node-types.ts";

export type WorkflowNodeData = {
  type: string;
  title?: string | undefined;
  values: Record<string, unknown>;
  onRename(id: string, title: string): void;
};

export type WorkflowFlowNode = Node<WorkflowNodeData, "workflow">;

function inputsOf(type: string, values: Record<string, unknown>) {
  const meta = findNodeType(type);
  const declared = (meta?.inputs ?? [])
    .filter((input) => input.handle !== false)
    .map((i) => ({ name: i.name, type: i.type }));
  if (meta?.dynamicInputs && typeof values.template === "string") {
    for (const name of templateInputs(values.template)) {
      if (!declared.some((d) => d.name === name)) declared.push({ name, type: meta.dynamicInputs.type });
    }
  }
  return declared;
}

export function WorkflowNode({ id, data, selected }: NodeProps<WorkflowFlowNode>) {
  const meta = findNodeType(data.type);
  const [editing, setEditing] = useState(false);
  const title = data.title || meta?.title || data.type;
  const inputs = inputsOf(data.type, data.values);
  const outputs = meta?.outputs ?? [{ name: "output", type: "any" as const, description: "" }];
  const rows = Math.max(inputs.length, outputs.length, 1);
  return (
    <div
      className={`wf-node${selected ? " selected" : ""}${meta ? "" : " unknown-type"}`}
      style={{ minHeight: 44 + rows * 22 }}
    >
      <div className="wf-node-title">
        {editing ? (
          <input
            aria-label="Node title"
            className="nodrag"
            defaultValue={title}
            // biome-ignore lint/a11y/noAutofocus: the field exists only while the user renames
            autoFocus
            onBlur={(e) => {
              setEditing(false);
              if (e.target.value !== title) data.onRename(id, e.target.value);
            }}
            onKeyDown={(e) => {
              if (e.key === "Enter") (e.target as HTMLInputElement).blur();
              if (e.key === "Escape") setEditing(false);
            }}
          />
        ) : (
          <button
            type="button"
            className="title-button nodrag"
            title="Rename (double-click)"
            onDoubleClick={() => setEditing(true)}
          >
            {title}
          </button>
        )}
      </div>
      <div className="wf-node-type">{data.type}</div>
      {inputs.map((input, i) => (
        <div key={`in-${input.name}`} className="wf-handle-label in" style={{ top: 44 + i * 22 }}>
          <Handle
            type="target"
            position={Position.Left}
            id={input.name}
            className={`handle-${input.type}`}
            style={{ top: 9 }}
          />
          {input.name}
        </div>
      ))}
      {outputs.map((output, i) => (
        <div key={`out-${output.name}`} className="wf-handle-label out" style={{ top: 44 + i * 22 }}>
          {output.name}
          <Handle
            type="source"
            position={Position.Right}
            id={output.name}
            className={`handle-${output.type}`}
            style={{ top: 9 }}
          />
        </div>
      ))}
    </div>
  );
}
