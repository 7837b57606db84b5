/**
 * `More` > `Versions`: the open workflow's earlier versions, newest first (every save keeps the one it
 * replaces, whoever saved: this page, another tab, an agent), each with when it was saved, its size and
 * its name when it had another. `Changes` says how its graph differs from the canvas, or (`Compare with`
 * the version before it) what it changed since the kept version before it: nodes only in one, inputs
 * changed, connections, moves. `Open` puts that version's graph on the canvas as an unsaved
 * draft: Undo puts back what was there, Save keeps it as the newest version, so going back loses no version.
 * A modal dialog: Escape or Close closes it and focus goes back to `More`.
 */
import { useEffect, useId, useRef, useState } from "react";
import { plural, timeAgo } from "../../../shared/protocol/durations.ts";
import type { WorkflowVersion } from "./versions.ts";

export interface VersionsDialogProps {
  /** The workflow's name and version now. */
  name: string;
  version: number;
  load(): Promise<{ versions: WorkflowVersion[] } | { problem: string }>;
  /** Puts a version's graph on the canvas; answers why not, or undefined. */
  onOpen(version: number): Promise<string | undefined>;
  /** How a version differs from the canvas, or what it changed `since` another, in lines (none: the same graph); or why it was not read. */
  compare(version: number, since?: number): Promise<{ changes: string[] } | { problem: string }>;
  /** `opened`: a version is on the canvas now. */
  onClose(opened: boolean): void;
}

type Compared = { changes: string[] } | { problem: string } | "reading";

/** What each version is compared with: the canvas, or the kept version before it. */
type Against = "canvas" | "before";

/** A version's differences from what it is compared with (`other`), below its row (read when first shown). */
function Changes({ id, version, other, compared }: { id: string; version: number; other: string; compared: Compared }) {
  return (
    <section id={id} className="version-changes" aria-label={`Changes in version ${version}`}>
      {compared === "reading" ? (
        <p className="status">Comparing with {other}…</p>
      ) : "problem" in compared ? (
        <p className="field-problem">Not compared: {compared.problem}</p>
      ) : compared.changes.length === 0 ? (
        <p>The same graph as {other}.</p>
      ) : (
        <ul>
          {compared.changes.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function VersionsDialog({ name, version, load, onOpen, compare, onClose }: VersionsDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  const id = useId();
  const [read, setRead] = useState<{ versions: WorkflowVersion[] } | { problem: string } | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  // The versions whose changes are shown, and what comparing each found (read once per dialog, per
  // what it is compared with).
  const [shown, setShown] = useState<ReadonlySet<number>>(new Set());
  const [against, setAgainst] = useState<Against>("canvas");
  const [compared, setCompared] = useState<ReadonlyMap<string, Compared>>(new Map());
  const listed = read && "versions" in read ? read.versions : [];
  /** The kept version before `v` (the list is newest first). */
  const before = (v: number) => listed[listed.findIndex((x) => x.version === v) + 1]?.version;
  const compareShown = (versions: Iterable<number>, side: Against) => {
    for (const v of versions) {
      const key = `${side}:${v}`;
      if (compared.has(key)) continue;
      const since = side === "before" ? before(v) : undefined;
      if (side === "before" && since === undefined) {
        setCompared((map) => new Map(map).set(key, { problem: "no version before it is kept." }));
        continue;
      }
      setCompared((map) => new Map(map).set(key, "reading"));
      void compare(v, since).then((answer) => setCompared((map) => new Map(map).set(key, answer)));
    }
  };
  const toggle = (chosen: number) => {
    const next = new Set(shown);
    if (!next.delete(chosen)) next.add(chosen);
    setShown(next);
    if (next.has(chosen)) compareShown([chosen], against);
  };
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    close.current?.focus();
    let live = true;
    void load().then((answer) => {
      if (live) setRead(answer);
    });
    return () => {
      live = false;
    };
  }, [load]);
  // Once listed, focus goes from Close to the newest version's Open (the likeliest choice), unless the
  // person has moved it meanwhile.
  useEffect(() => {
    if (!read || !("versions" in read) || document.activeElement !== close.current) return;
    ref.current?.querySelector<HTMLElement>(".version-row button.open-version")?.focus();
  }, [read]);

  const open = async (chosen: number) => {
    setBusy(true);
    const why = await onOpen(chosen);
    setBusy(false);
    if (why === undefined) onClose(true);
    else setProblem(why);
  };
  const now = Date.now();
  return (
    <dialog
      ref={ref}
      className="versions"
      aria-labelledby={`${id}-title`}
      onCancel={(event) => {
        event.preventDefault();
        onClose(false);
      }}
    >
      <h2 id={`${id}-title`}>Versions of “{name}”</h2>
      <p>
        Now: version {version}. Every save keeps the version it replaces. Open one to put its graph on the canvas as an
        unsaved draft: Undo puts back what was there, Save keeps it as the newest version.
      </p>
      {read === undefined ? <p className="status">Reading the versions…</p> : null}
      {read && "problem" in read ? (
        <p className="field-problem" role="alert">
          The versions could not be read: {read.problem}
        </p>
      ) : null}
      {listed.length > 0 ? (
        <label className="compare-with">
          Compare with{" "}
          <select
            value={against}
            onChange={(event) => {
              const side = event.target.value as Against;
              setAgainst(side);
              compareShown(shown, side);
            }}
          >
            <option value="canvas">the canvas</option>
            <option value="before">the version before each</option>
          </select>
        </label>
      ) : null}
      {read && "versions" in read ? (
        read.versions.length === 0 ? (
          <p className="status">No earlier versions yet: the first save will keep this one.</p>
        ) : (
          <ul className="version-list" aria-label="Earlier versions">
            {read.versions.map((v) => (
              <li key={v.version} className="version-row">
                <span>
                  <strong>Version {v.version}</strong> · saved{" "}
                  <time dateTime={v.saved_at} title={new Date(v.saved_at).toLocaleString()}>
                    {timeAgo(v.saved_at, now)}
                  </time>{" "}
                  · {plural(v.nodes, "node")}, {plural(v.edges, "connection")}
                  {v.name !== name ? <> · named “{v.name}”</> : null}
                </span>
                <span className="version-buttons">
                  <button
                    type="button"
                    aria-label={`Changes in version ${v.version}`}
                    aria-expanded={shown.has(v.version)}
                    aria-controls={`${id}-changes-${v.version}`}
                    onClick={() => toggle(v.version)}
                  >
                    Changes
                  </button>
                  <button
                    type="button"
                    className="open-version"
                    aria-label={`Open version ${v.version}`}
                    disabled={busy}
                    onClick={() => void open(v.version)}
                  >
                    Open
                  </button>
                </span>
                {shown.has(v.version) ? (
                  <Changes
                    id={`${id}-changes-${v.version}`}
                    version={v.version}
                    other={against === "canvas" ? "the canvas" : `version ${before(v.version) ?? "before it"}`}
                    compared={compared.get(`${against}:${v.version}`) ?? "reading"}
                  />
                ) : null}
              </li>
            ))}
          </ul>
        )
      ) : null}
      {problem ? (
        <p className="field-problem" role="alert">
          Not opened: {problem}
        </p>
      ) : null}
      <div className="buttons">
        <button type="button" ref={close} onClick={() => onClose(false)}>
          Close
        </button>
      </div>
    </dialog>
  );
}
