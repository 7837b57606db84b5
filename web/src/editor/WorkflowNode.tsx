/**
 * One node on the canvas: its title and type, one row per typed input (its handle, and its current
 * value compactly: truncated, the full text on hover) and per output, and, while or after the open
 * workflow runs, its status (queued, running, done, failed with the error) and its output preview (an
 * image it made, as a thumbnail).
 * A node an action has just added or changed is marked for a moment. A note is NoteNode.tsx.
 */
import { Handle, type Node, type NodeProps, Position } from "@xyflow/react";
import { findNodeType, isNote, nodeLabel } from "../../../shared/graph/node-types.ts";
import { AssetRef } from "../../../shared/protocol/values.ts";
import { useAssetNames } from "../asset-names.ts";
import type { NodeRun } from "../jobs/jobs-store.ts";
import { PageImage } from "../PageImage.tsx";
import { previewText, valuesLine } from "../panel/ValueView.tsx";
import { inputHandles, outputHandles } from "./handles.ts";
import { NoteNode } from "./NoteNode.tsx";

export type WorkflowNodeData = {
  type: string;
  title?: string | undefined;
  values: Record<string, unknown>;
  /** Inputs that have an incoming edge (their value comes from it, not from `values`). */
  wired: readonly string[];
  run?: NodeRun | undefined;
  /** An action has just added or changed it (action-changes.ts): marked for a moment. */
  changed?: boolean | undefined;
};

export type WorkflowFlowNode = Node<WorkflowNodeData, "workflow">;

/** A node run's status as the canvas and the inspector say it. */
export const STATUS_TEXT: Record<NodeRun["status"], string> = {
  queued: "queued",
  running: "running",
  completed: "done",
  failed: "failed",
  skipped: "skipped",
  cancelled: "cancelled",
};

/** A node's value for its row: short, one line; the full JSON goes to the row's title. */
function shown(value: unknown): { short: string; full: string } {
  const full = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  return { short: previewText(typeof value === "string" ? value : value, 28), full };
}

/** The properties (inputs without a handle) a node has set, shown under its title. */
function properties(type: string, values: Record<string, unknown>): [string, unknown][] {
  const meta = findNodeType(type);
  return (meta?.inputs ?? [])
    .filter((i) => i.handle === false && values[i.name] !== undefined)
    .map((i) => [i.name, values[i.name]]);
}

/** The first asset among a finished node's outputs (an image op's result): shown as a thumbnail when it is an image. */
function outputAsset(run: NodeRun | undefined): AssetRef | undefined {
  if (run?.status !== "completed") return undefined;
  const outputs = run.outputs;
  if (outputs instanceof AssetRef) return outputs;
  if (!outputs || typeof outputs !== "object") return undefined;
  return Object.values(outputs).find((value): value is AssetRef => value instanceof AssetRef);
}

/**
 * A finished node's outputs in one line (its one output's value, or each output by name; an asset by
 * its name, once read; rows by their count), the whole JSON on hover.
 */
function OutputPreview({ outputs }: { outputs: unknown }) {
  const nameOf = useAssetNames(outputs);
  const record = outputs !== null && typeof outputs === "object" && !Array.isArray(outputs);
  const entries = record && !(outputs instanceof AssetRef) ? Object.entries(outputs) : [];
  const preview = entries.length === 1 ? previewText(entries[0]?.[1], 40, nameOf) : valuesLine(outputs, "", nameOf);
  return (
    <div className="wf-preview" title={JSON.stringify(outputs) ?? ""}>
      → {preview}
    </div>
  );
}

export function WorkflowNode({ id, data, selected }: NodeProps<WorkflowFlowNode>) {
  if (isNote(data.type)) return <NoteNode id={id} data={data} selected={selected} />;
  const meta = findNodeType(data.type);
  const title = nodeLabel(data);
  const inputs = inputHandles(data.type, data.values);
  const outputs = outputHandles(data.type);
  const props = properties(data.type, data.values);
  const run = data.run;
  const asset = outputAsset(run);
  return (
    <div
      className={`wf-node${selected ? " selected" : ""}${meta ? "" : " unknown-type"}${run ? ` run-${run.status}` : ""}${data.changed ? " changed" : ""}`}
      data-status={run?.status}
    >
      <div className="wf-node-title">
        <span className="wf-title">{title}</span>
        {run ? (
          <span
            className={`wf-status status-${run.status}`}
            role="status"
            aria-label={`${title}: ${STATUS_TEXT[run.status]}`}
          >
            {STATUS_TEXT[run.status]}
          </span>
        ) : null}
      </div>
      <div className="wf-node-type">{data.type}</div>
      {props.map(([name, value]) => {
        const { short, full } = shown(value);
        return (
          <div key={`p-${name}`} className="wf-row property" title={`${name}: ${full}`}>
            <span className="wf-name">{name}</span> <span className="wf-value">{short}</span>
          </div>
        );
      })}
      {inputs.map((input) => {
        const wired = data.wired.includes(input.name);
        const value = data.values[input.name];
        const { short, full } = shown(value);
        return (
          <div
            key={`in-${input.name}`}
            className="wf-row in"
            title={`${input.name} (${input.type})${wired ? ": connected" : value !== undefined ? `: ${full}` : ""}`}
          >
            <Handle type="target" position={Position.Left} id={input.name} className={`handle-${input.type}`} />
            <span className="wf-name">{input.name}</span>
            {!wired && value !== undefined ? <span className="wf-value">{short}</span> : null}
          </div>
        );
      })}
      {outputs.map((output) => (
        <div key={`out-${output.name}`} className="wf-row out" title={`${output.name} (${output.type})`}>
          <span className="wf-name">{output.name}</span>
          <Handle type="source" position={Position.Right} id={output.name} className={`handle-${output.type}`} />
        </div>
      ))}
      {run?.status === "completed" && run.outputs !== undefined ? <OutputPreview outputs={run.outputs} /> : null}
      {asset ? (
        // A file that is not an image hides itself (PageImage); the preview line above names it.
        <PageImage
          src={`/assets/${encodeURIComponent(asset.id)}`}
          alt={`${title}: output image`}
          className="wf-thumb"
        />
      ) : null}
      {run?.status === "failed" && run.error ? (
        <div className="wf-error" title={run.error}>
          {run.error}
        </div>
      ) : null}
    </div>
  );
}
