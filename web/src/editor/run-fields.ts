/**
 * What the run input fields hold, per workflow, kept across reloads (localStorage): what the person
 * typed, or what the Jobs tab's `Use these inputs` put there from a past run. Read with
 * `useSyncExternalStore(fields.subscribe, () => fields.get(workflowId))`.
 */
import { AssetRef } from "../../../shared/protocol/values.ts";
import { ExternalStore } from "../external-store.ts";

export type Fields = Readonly<Record<string, string>>;

const KEY = "run-inputs";
const NONE: Fields = Object.freeze({});

/** The fields last kept for a workflow (none when nothing readable is kept). */
function kept(workflowId: string): Fields {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(`${KEY}:${workflowId}`) ?? "{}");
    if (!value || typeof value !== "object" || Array.isArray(value)) return NONE;
    return Object.fromEntries(
      Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch {
    return NONE;
  }
}

export class RunFields extends ExternalStore<number> {
  readonly #read = new Map<string, Fields>();

  constructor() {
    super(0);
  }

  /** The same object until the workflow's fields change. */
  get(workflowId: string): Fields {
    let fields = this.#read.get(workflowId);
    if (!fields) {
      fields = kept(workflowId);
      this.#read.set(workflowId, fields);
    }
    return fields;
  }

  set(workflowId: string, fields: Fields): void {
    this.#read.set(workflowId, fields);
    try {
      localStorage.setItem(`${KEY}:${workflowId}`, JSON.stringify(fields));
    } catch {
      // Storage full or refused: the fields still hold them for this page's life.
    }
    this.publish(this.getSnapshot() + 1);
  }
}

/** Whether a value is plain JSON (no asset or bytes inside), so a text field can hold it. */
function plain(value: unknown): boolean {
  if (value instanceof AssetRef || value instanceof Uint8Array) return false;
  if (value === null || typeof value !== "object") return true;
  return Object.values(value).every(plain);
}

/**
 * A run's inputs as the fields show them (RunInputs.tsx reads a field as JSON when it is JSON, else as
 * its text): text as itself, quoted when it would read as JSON (or is empty); an asset as its id (what
 * an asset field holds); other values as JSON. Undefined when one cannot be typed (bytes, an asset
 * inside a value) or the inputs were too large to list.
 */
export function fieldsOf(inputs: unknown): Fields | undefined {
  if (!inputs || typeof inputs !== "object" || Array.isArray(inputs) || "$truncated" in inputs) return undefined;
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(inputs)) {
    if (value instanceof AssetRef) {
      fields[name] = value.id;
      continue;
    }
    if (!plain(value)) return undefined;
    if (typeof value === "string") {
      fields[name] = typedText(value);
    } else {
      fields[name] = JSON.stringify(value);
    }
  }
  return fields;
}

/**
 * What a person types where any value goes (a run input, an `any` input in the Inspector): JSON when
 * it reads as JSON (`42`, `true`, `{"a":1}`, `"quoted text"`), else the text itself.
 */
export function readTyped(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Text as such a field shows it, so that `readTyped` reads it back as text: quoted only when it would read as JSON, or is empty. */
export function typedText(value: string): string {
  return value === "" || readTyped(value) !== value ? JSON.stringify(value) : value;
}
