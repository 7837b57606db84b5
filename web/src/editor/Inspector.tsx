/**
 * The `Inspector` region: with no node selected, the workflow's own details (WorkflowDetails.tsx);
 * else the selected node's title and one field per input from its node type's
 * metadata. A connectable input also says where its value comes from, or offers the outputs that fit
 * (`InputSource`: connecting without a drag). Every edit is the user's (`ui_update_node_data`,
 * `ui_set_node_title`, `ui_connect_nodes`, `ui_delete_edge`), undoable, and visible on the node at once.
 * Under the fields, `Last run`: how the node did in the canvas's last run, its error or its whole output
 * (the node itself shows a one-line preview). A table node's `column` offers the columns its rows had
 * in that run.
 */
import type { Graph, GraphNode } from "../../../shared/graph/document.ts";
import { findNodeType, type InputSpec, nodeLabel } from "../../../shared/graph/node-types.ts";
import { Copy } from "../agent/CopyButton.tsx";
import type { NodeRun } from "../jobs/jobs-store.ts";
import { ValueView } from "../panel/ValueView.tsx";
import type { EditorController } from "./controller.ts";
import { Field } from "./fields.tsx";
import { assetFedBy, inputHandles } from "./handles.ts";
import { InputSource } from "./InputSource.tsx";
import { focusOnceDrawn } from "./view.ts";
import { WorkflowDetails } from "./WorkflowDetails.tsx";
import { STATUS_TEXT } from "./WorkflowNode.tsx";

export interface InspectorProps {
  node: GraphNode | undefined;
  /** How many nodes are selected (the inspector edits one). */
  selected: number;
  graph: Graph;
  controller: EditorController;
  onMessage(message: string | undefined): void;
  /** The node runs of the canvas's last job (one this page followed), by node id. */
  runs?: Readonly<Record<string, NodeRun>> | undefined;
}

/**
 * The columns of the rows a node's `rows` input was given in the canvas's last run (the output of the
 * node it is connected from, when that was a list of records): what its `column` may name.
 */
function columnsFed(graph: Graph, node: GraphNode, runs: InspectorProps["runs"]): string[] {
  const edge = graph.edges.find((e) => e.target === node.id && e.targetHandle === "rows");
  const run = edge ? runs?.[edge.source] : undefined;
  if (!edge || run?.status !== "completed" || !run.outputs || typeof run.outputs !== "object") return [];
  const rows = (run.outputs as Record<string, unknown>)[edge.sourceHandle];
  if (!Array.isArray(rows)) return [];
  const columns = new Set<string>();
  for (const row of rows.slice(0, 100)) {
    if (row && typeof row === "object" && !Array.isArray(row)) for (const key of Object.keys(row)) columns.add(key);
  }
  return [...columns].slice(0, 50);
}

/** Buttons that put one of the columns in the field, as a spreadsheet's column picker does. */
function ColumnChoices({
  columns,
  chosen,
  onChoose,
}: {
  columns: string[];
  chosen: unknown;
  onChoose(c: string): void;
}) {
  return (
    <fieldset className="column-choices">
      <legend>Columns in the last run:</legend>
      {columns.map((column) => (
        <button key={column} type="button" aria-pressed={chosen === column} onClick={() => onChoose(column)}>
          {column}
        </button>
      ))}
    </fieldset>
  );
}

/** Declared inputs, then the dynamic inputs the node's template or expression names. */
/** A node's fields: its declared inputs, then its dynamic ones. A workflow input that feeds an image
 * (audio, file) input has its `default` picked as an asset, as its run field is. */
function fieldsOf(node: GraphNode, graph: Graph): InputSpec[] {
  const meta = findNodeType(node.type);
  const fed = node.type === "workflow.input" ? assetFedBy(graph, node.id) : undefined;
  const declared = (meta?.inputs ?? []).map((spec) => (fed && spec.name === "default" ? { ...spec, type: fed } : spec));
  for (const handle of inputHandles(node.type, node.data)) {
    if (!declared.some((d) => d.name === handle.name)) declared.push(handle);
  }
  return declared;
}

export function Inspector({ node, selected, graph, controller, onMessage, runs }: InspectorProps) {
  if (!node) {
    const workflow = controller.store.getSnapshot().workflow;
    return (
      <section className="inspector" aria-label="Inspector">
        <h2>Inspector</h2>
        <p className="status">
          {selected > 1
            ? `${selected} nodes are selected; select one to edit it.`
            : "Select a node to edit its inputs."}
        </p>
        {workflow && selected === 0 ? (
          <WorkflowDetails
            key={workflow.id}
            description={workflow.description}
            graph={graph}
            onDescribe={(description) => controller.setDetail("description", description)}
          />
        ) : null}
      </section>
    );
  }
  const meta = findNodeType(node.type);
  const run = runs?.[node.id];
  const columns = meta?.inputs.some((i) => i.name === "column") ? columnsFed(graph, node, runs) : [];
  const group = (what: string) => `inspect:${node.id}:${what}`;
  const set = (name: string, value: unknown, spec: InputSpec) => {
    // Back to the default: the input's default value (an unset optional input has none: null).
    const next = value === undefined ? (spec.default ?? null) : value;
    onMessage(controller.userEdit("ui_update_node_data", { node_id: node.id, data: { [name]: next } }, group(name)));
  };
  return (
    <section className="inspector" aria-label="Inspector" data-node={node.id}>
      <h2>{nodeLabel(node)}</h2>
      <p className="inspector-type">
        <code>{node.type}</code> · {node.id}
      </p>
      {meta ? <p className="field-help">{meta.description}</p> : <p className="error">Unknown node type.</p>}
      <div className="field">
        <label htmlFor="field-title">Title</label>
        <input
          id="field-title"
          data-node={node.id}
          value={node.title ?? ""}
          placeholder={meta?.title ?? node.type}
          onChange={(event) =>
            onMessage(
              controller.userEdit("ui_set_node_title", { node_id: node.id, title: event.target.value }, group("title")),
            )
          }
          onBlur={() => controller.endEdit()}
          // Renamed (F2 or the node's menu brought the cursor here): Enter or Escape goes back to the node.
          onKeyDown={(event) => {
            if (event.key !== "Enter" && event.key !== "Escape") return;
            event.preventDefault();
            controller.endEdit();
            focusOnceDrawn(node.id);
          }}
        />
      </div>
      {fieldsOf(node, graph).map((spec) => {
        const connectable = inputHandles(node.type, node.data).some((h) => h.name === spec.name);
        const source = connectable ? (
          <InputSource
            graph={graph}
            node={node}
            input={spec.name}
            onEdit={(op, args) => onMessage(controller.userEdit(op, args))}
          />
        ) : null;
        if (graph.edges.some((e) => e.target === node.id && e.targetHandle === spec.name)) {
          return (
            <div key={`${node.id}:${spec.name}`} className="field connected">
              <span className="field-label">
                {spec.name} <small>{spec.type}</small>
              </span>
              {source}
            </div>
          );
        }
        return (
          <div key={`${node.id}:${spec.name}`}>
            <Field
              spec={spec}
              value={node.data[spec.name]}
              onChange={(value) => set(spec.name, value, spec)}
              onDone={() => controller.endEdit()}
              calls={controller.calls}
            />
            {spec.name === "column" && columns.length > 0 ? (
              <ColumnChoices
                columns={columns}
                chosen={node.data.column}
                onChoose={(column) => {
                  set("column", column, spec);
                  controller.endEdit();
                }}
              />
            ) : null}
            {source}
          </div>
        );
      })}
      {run ? <LastRun run={run} /> : null}
    </section>
  );
}

function LastRun({ run }: { run: NodeRun }) {
  return (
    <section className="last-run" aria-label="Last run">
      <h3>Last run</h3>
      <p>
        <span className={`wf-status status-${run.status}`}>{STATUS_TEXT[run.status]}</span>
      </p>
      {run.error ? <p className="error">{run.error}</p> : null}
      {run.status === "completed" && run.outputs !== undefined ? (
        <>
          <ValueView value={run.outputs} />
          <Copy value={run.outputs} label="Copy the output" />
        </>
      ) : null}
    </section>
  );
}
