/**
 * The values a run passes to the graph's `workflow.input` nodes, by name: one field per named input
 * (its `default` shown as the placeholder; left empty, the node uses it). A field's text is read as
 * JSON when it is JSON (`42`, `true`, `{"a":1}`), else as the text itself. Enter in a field runs. An
 * input connected to an image, audio or file input picks one of the person's assets (or uploads one)
 * instead: the field holds the asset's id, which the engine takes as that asset.
 */
import type { Graph } from "../../../shared/graph/document.ts";
import type { AssetHandleType } from "../../../shared/graph/node-types.ts";
import { AssetField } from "./AssetField.tsx";
import { assetFedBy } from "./handles.ts";
import { readTyped } from "./run-fields.ts";
import type { UserCalls } from "./user-calls.ts";

export interface RunInput {
  name: string;
  fallback: unknown;
  /** The input feeds an asset input of this kind: the field picks an asset. */
  asset?: AssetHandleType | undefined;
}

/** The graph's named workflow inputs, once each, in node order. */
export function runInputs(graph: Graph): RunInput[] {
  const seen = new Map<string, RunInput>();
  for (const node of graph.nodes) {
    const name = node.type === "workflow.input" ? node.data.name : undefined;
    if (typeof name === "string" && name !== "" && !seen.has(name))
      seen.set(name, { name, fallback: node.data.default, asset: assetFedBy(graph, node.id) });
  }
  return [...seen.values()];
}

/** What the fields hold, as run_workflow's `inputs`: empty fields are left out; an asset field, its id. */
export function inputValues(fields: Record<string, string>, inputs: readonly RunInput[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const { name, asset } of inputs) {
    const text = fields[name];
    if (text === undefined || text === "") continue;
    if (asset) {
      values[name] = text;
      continue;
    }
    values[name] = readTyped(text);
  }
  return values;
}

export function RunInputs({
  inputs,
  fields,
  onChange,
  onSubmit,
  calls,
}: {
  inputs: readonly RunInput[];
  fields: Record<string, string>;
  onChange(fields: Record<string, string>): void;
  /** Enter in a field: run, as a form's Enter submits it. */
  onSubmit(): void;
  /** The person's calls: an asset field lists their assets and saves an upload. */
  calls: UserCalls;
}) {
  if (inputs.length === 0) return null;
  return (
    <fieldset className="run-inputs">
      <legend>Inputs</legend>
      {inputs.map(({ name, fallback, asset }) =>
        asset ? (
          <span key={name} className="run-asset">
            {name}{" "}
            <AssetField
              spec={{ name, type: asset, description: "" }}
              value={fields[name]}
              onChange={(value) => onChange({ ...fields, [name]: typeof value === "string" ? value : "" })}
              onDone={() => {}}
              calls={calls}
              compact={{ id: `run-input-${name}`, label: `Input ${name}` }}
            />
          </span>
        ) : (
          <label key={name}>
            {name}{" "}
            <input
              type="text"
              aria-label={`Input ${name}`}
              value={fields[name] ?? ""}
              placeholder={fallback === undefined ? "required" : JSON.stringify(fallback)}
              onChange={(event) => onChange({ ...fields, [name]: event.target.value })}
              onKeyDown={(event) => {
                if (event.key === "Enter" && !event.nativeEvent.isComposing) {
                  event.preventDefault();
                  onSubmit();
                }
              }}
            />
          </label>
        ),
      )}
    </fieldset>
  );
}
