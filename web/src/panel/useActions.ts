/**
 * The state the `Action` and `History` tabs share: the action's code, whether it runs, its last
 * observation, and the history of past actions (restoring an entry brings back its code and result), and
 * code brought in from elsewhere (an agent's step).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { fromWire, toWire } from "../../../shared/protocol/values.ts";
import type { Observation } from "../../../shared/protocol/worker.ts";
import { appPersistence, type HistoryEntry, type Persistence } from "../persist.ts";
import type { SandboxClient } from "../sandbox-client.ts";

export const EXAMPLE_ACTION = `import { workflows } from "@nodetool-ai/sandbox-nodetool/workflows";

const { workflows: list } = await workflows.list({ limit: 5 });
console.log("found", list.length, "workflows");
export default list.map((w) => w.name);
`;

export interface Actions {
  /**
   * The code as loaded, restored or brought in, a new object each time (the editor's own edits are in
   * `codeRef`): restoring the code the editor started from still replaces what the person typed since.
   */
  source: { code: string; focus?: boolean } | undefined;
  running: boolean;
  observation: Observation | undefined;
  /** The last run's result as host values (assets, bytes), when it was whole; not kept in the history. */
  value: unknown;
  notice: string | undefined;
  history: HistoryEntry[];
  /** The code now in the editor (what the next run or type check takes). */
  current(): string;
  edited(value: string): void;
  run(): Promise<void>;
  cancel(): void;
  restore(entry: HistoryEntry): void;
  /** Puts `code` in the editor, as the draft, with no result yet (an agent's action to edit and run). */
  load(code: string): void;
  clear(): Promise<void>;
}

export function useActions(sandbox: SandboxClient, persistence: Persistence = appPersistence): Actions {
  const [source, setSource] = useState<{ code: string; focus?: boolean } | undefined>();
  const [running, setRunning] = useState(false);
  const [observation, setObservation] = useState<Observation | undefined>();
  const [value, setValue] = useState<unknown>();
  const [notice, setNotice] = useState<string | undefined>();
  const [history, setHistory] = useState<HistoryEntry[]>([]);
  const codeRef = useRef("");

  useEffect(() => {
    void persistence.loadDraft().then((draft) => {
      codeRef.current = draft ?? EXAMPLE_ACTION;
      setSource({ code: codeRef.current });
    });
    void persistence.loadHistory().then(setHistory);
  }, [persistence]);

  const edited = useCallback(
    (value: string) => {
      codeRef.current = value;
      void persistence.saveDraft(value);
    },
    [persistence],
  );

  /** History writes in the order the runs ended (each reads the list the one before it wrote). */
  const saving = useRef<Promise<unknown>>(Promise.resolve());

  /** An action is running (guards a second Run at once, before React has re-rendered `run`). */
  const runningRef = useRef(false);

  const run = useCallback(async () => {
    if (runningRef.current) return;
    runningRef.current = true;
    const source = codeRef.current;
    // The action leaves for the worker first, then "Running…" is painted (at once, so that the last
    // result is gone when the click returns): the worker runs the action while the page paints.
    const pending = sandbox.run(source);
    flushSync(() => {
      setRunning(true);
      setNotice(undefined);
      setObservation(undefined);
      setValue(undefined);
    });
    let entry: HistoryEntry;
    try {
      const result = await pending;
      // The result is painted as soon as it is here, not in a later task.
      flushSync(() => {
        setObservation(result.observation);
        setValue(result.value);
        setNotice(result.notice);
        setRunning(false);
      });
      entry = {
        id: crypto.randomUUID(),
        code: source,
        at: Date.now(),
        ok: result.observation.ok,
        summary: result.observation.ok ? "ok" : `${result.observation.error?.code ?? "failed"}`,
        observation: result.observation,
        // Stored in the boundary encoding, so a restored entry shows its assets as the run did.
        ...(result.value === undefined ? {} : { value: toWire(result.value) }),
      };
    } finally {
      runningRef.current = false;
      setRunning(false);
    }
    const kept = entry;
    saving.current = saving.current
      .then(() => persistence.addHistory(kept))
      .then(setHistory, () => setHistory((past) => [kept, ...past]));
    await saving.current;
  }, [sandbox, persistence]);

  const restore = useCallback(
    (entry: HistoryEntry) => {
      codeRef.current = entry.code;
      setSource({ code: entry.code, focus: true });
      setObservation(entry.observation);
      setValue(storedValue(entry));
      setNotice(entry.observation ? undefined : "No result was kept for this entry (it was too large); run it again.");
      void persistence.saveDraft(entry.code);
    },
    [persistence],
  );

  const load = useCallback(
    (text: string) => {
      codeRef.current = text;
      setSource({ code: text, focus: true });
      setObservation(undefined);
      setValue(undefined);
      setNotice(undefined);
      void persistence.saveDraft(text);
    },
    [persistence],
  );

  const clear = useCallback(async () => {
    await persistence.clearHistory();
    setHistory([]);
  }, [persistence]);

  const current = useCallback(() => codeRef.current, []);
  const cancel = useCallback(() => sandbox.cancel(), [sandbox]);
  return {
    source,
    running,
    observation,
    value,
    notice,
    history,
    current,
    edited,
    run,
    cancel,
    restore,
    load,
    clear,
  };
}

/** A history entry's result as host values; an entry kept without one (or unreadable) shows its observation. */
function storedValue(entry: HistoryEntry): unknown {
  if (entry.value === undefined || !entry.observation) return undefined;
  try {
    return fromWire(entry.value, "result");
  } catch {
    return undefined;
  }
}
