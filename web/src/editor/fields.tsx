/**
 * One inspector field per input, chosen from its type in the node-type metadata: text, number,
 * boolean, enum (a select), JSON (validated before it is set; where any value goes, text that is not
 * JSON is the text), asset (pick or upload). A field sets its value on every change (visible on the
 * node at once); the keystrokes of one visit to the field are one undo step. Inside a field, Ctrl+Z
 * is the field's own.
 */
import { useEffect, useState } from "react";
import type { InputSpec } from "../../../shared/graph/node-types.ts";
import { AssetField } from "./AssetField.tsx";
import { readTyped, typedText } from "./run-fields.ts";
import type { UserCalls } from "./user-calls.ts";

export interface FieldProps {
  spec: Pick<InputSpec, "name" | "type" | "description" | "default" | "options" | "min" | "max" | "required">;
  value: unknown;
  /** Sets the value (undefined: back to the input's default). */
  onChange(value: unknown): void;
  /** The visit to the field ended: the next change is a new undo step. */
  onDone(): void;
  calls: UserCalls;
}

const fieldId = (name: string) => `field-${name}`;

/** The most lines a text field shows before it scrolls. */
const TEXT_ROWS_MAX = 12;

/**
 * A JSON value, checked as it is typed. Where any value goes (`any`), text that is not JSON is taken
 * as the text itself, as the run inputs take it: `drink` is the text "drink", `"5"` the text "5".
 */
function JsonField({ spec, value, onChange, onDone }: FieldProps) {
  const loose = spec.type === "any";
  const text =
    value === undefined ? "" : loose && typeof value === "string" ? typedText(value) : JSON.stringify(value, null, 1);
  const [draft, setDraft] = useState(text);
  const [problem, setProblem] = useState<string | undefined>();
  // A change from elsewhere (undo, an action) replaces the draft unless it is being edited into it.
  useEffect(() => setDraft(text), [text]);
  return (
    <>
      <textarea
        id={fieldId(spec.name)}
        rows={3}
        value={draft}
        placeholder={loose ? "JSON, or text as it is" : undefined}
        spellCheck={false}
        aria-invalid={problem !== undefined && !loose}
        aria-describedby={problem ? `${fieldId(spec.name)}-problem` : undefined}
        onChange={(event) => {
          setDraft(event.target.value);
          if (event.target.value.trim() === "") {
            setProblem(undefined);
            onChange(undefined);
            return;
          }
          if (loose) {
            const read = readTyped(event.target.value);
            // Text that looks meant as JSON but is not says so: it still goes, as text.
            const meant = typeof read === "string" && /^\s*[[{"]/.test(read);
            setProblem(meant ? "Not valid JSON, so it is taken as text." : undefined);
            onChange(read);
            return;
          }
          try {
            const parsed: unknown = JSON.parse(event.target.value);
            if (spec.type === "list" && !Array.isArray(parsed)) throw new Error("expected a list: [ ... ]");
            setProblem(undefined);
            onChange(parsed);
          } catch (err) {
            setProblem(err instanceof SyntaxError ? `Not valid JSON: ${err.message}` : String((err as Error).message));
          }
        }}
        onBlur={onDone}
      />
      {problem ? (
        // A loose field's note is no error (it goes as text): said politely, not as an alert at each key.
        <span className="field-problem" id={`${fieldId(spec.name)}-problem`} role={loose ? "status" : "alert"}>
          {problem}
        </span>
      ) : null}
    </>
  );
}

function NumberField({ spec, value, onChange, onDone }: FieldProps) {
  const text = typeof value === "number" ? String(value) : "";
  const [draft, setDraft] = useState(text);
  useEffect(() => setDraft((d) => (Number(d) === value && d.trim() !== "" ? d : text)), [text, value]);
  const outside =
    typeof value === "number" &&
    ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max));
  return (
    <>
      <input
        id={fieldId(spec.name)}
        type="number"
        value={draft}
        min={spec.min}
        max={spec.max}
        step="any"
        placeholder={spec.default !== undefined ? String(spec.default) : ""}
        aria-invalid={outside}
        onChange={(event) => {
          setDraft(event.target.value);
          if (event.target.value.trim() === "") onChange(undefined);
          else if (Number.isFinite(event.target.valueAsNumber)) onChange(event.target.valueAsNumber);
        }}
        onBlur={onDone}
      />
      {outside ? (
        <span className="field-problem" role="alert">
          Must be between {spec.min ?? "-∞"} and {spec.max ?? "∞"}.
        </span>
      ) : null}
    </>
  );
}

export function Field(props: FieldProps) {
  const { spec, value, onChange, onDone } = props;
  const id = fieldId(spec.name);
  let control: React.ReactNode;
  if (spec.options) {
    control = (
      <select
        id={id}
        value={typeof value === "string" ? value : String(spec.default ?? "")}
        onChange={(event) => {
          onChange(event.target.value === "" ? undefined : event.target.value);
          onDone();
        }}
      >
        {spec.default === undefined ? <option value="">(not set)</option> : null}
        {spec.options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    );
  } else if (spec.type === "boolean") {
    control = (
      <input
        id={id}
        type="checkbox"
        checked={typeof value === "boolean" ? value : spec.default === true}
        onChange={(event) => {
          onChange(event.target.checked);
          onDone();
        }}
      />
    );
  } else if (spec.type === "number") {
    control = <NumberField {...props} />;
  } else if (spec.type === "string") {
    const text = typeof value === "string" ? value : "";
    control = (
      <textarea
        id={id}
        // As tall as its lines (the stylesheet's field-sizing grows it with wrapped lines too, up to a limit).
        rows={Math.min(TEXT_ROWS_MAX, text.split("\n").length)}
        value={text}
        placeholder={typeof spec.default === "string" ? spec.default : ""}
        onChange={(event) => onChange(event.target.value)}
        onBlur={onDone}
      />
    );
  } else if (spec.type === "image" || spec.type === "audio" || spec.type === "file") {
    control = <AssetField {...props} />;
  } else {
    control = <JsonField {...props} />;
  }
  return (
    <div className={`field field-${spec.type}`}>
      <label htmlFor={id}>
        {spec.name}
        {spec.required ? <span aria-hidden="true"> *</span> : null} <small>{spec.type}</small>
      </label>
      {control}
      <small className="field-help">{spec.description}</small>
    </div>
  );
}
