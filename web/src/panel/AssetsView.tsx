/**
 * The `Assets` tab: the files the person keeps (what they uploaded, what an action or the agent saved),
 * newest first, read again whenever the tab is shown. Found by name (`Find assets`) and kind; each with
 * its thumbnail (images), type, size and age, and `Download`, `Add to workflow` (a Load asset node of it
 * on the open workflow's canvas, shown there), `Ask the agent` (about it, in Message) and `Delete` (asks
 * first, naming it). `Upload` (or files dropped on the tab) saves files as new assets,
 * the person's own act. Every call is the person's own (UserCalls): audited, never prompted.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { formatBytes, plural, timeAgo } from "../../../shared/protocol/durations.ts";
import { ConfirmDialog } from "../ConfirmDialog.tsx";
import type { UserCalls } from "../editor/user-calls.ts";
import { FilesButton } from "../FilesButton.tsx";
import { takeDroppedFiles } from "../file-drops.ts";
import { PageImage } from "../PageImage.tsx";
import { usePageUrl } from "../page-fetch.ts";
import { type Sending, UploadProgress } from "../UploadProgress.tsx";
import { AssetText } from "./AssetText.tsx";

interface Asset {
  id: string;
  name: string;
  content_type: string;
  kind: "image" | "text" | "binary";
  size: number;
  url: string;
  created_at: string;
}

/** The kinds to show, by the start of their media type. */
const KINDS: readonly { label: string; prefix: string }[] = [
  { label: "All kinds", prefix: "" },
  { label: "Images", prefix: "image/" },
  { label: "Audio", prefix: "audio/" },
  { label: "Text", prefix: "text/" },
  { label: "JSON", prefix: "application/json" },
];
const PAGE = 50;
/** A pause in typing before the server is asked. */
const TYPING_MS = 200;

export interface AssetsViewProps {
  calls: UserCalls;
  /** The tab is shown: the list is read again (an action may have saved one meanwhile). */
  visible: boolean;
  /** A question about an asset, begun in the agent's Message (absent without an agent). */
  ask?: ((text: string) => void) | undefined;
  /** Puts a Load asset node of it on the open workflow's canvas; answers why not (absent without an editor). */
  addToWorkflow?: ((asset: { id: string; name: string }) => Promise<string | undefined>) | undefined;
}

interface AssetRowProps {
  asset: Asset;
  ask?: ((text: string) => void) | undefined;
  onAdd?: (() => void) | undefined;
  onDelete(): void;
}

function AssetRow({ asset, ask, onAdd, onDelete }: AssetRowProps) {
  const href = usePageUrl(asset.url);
  const [showText, setShowText] = useState(false);
  return (
    <li className="asset-row">
      {asset.kind === "image" ? (
        // The thumbnail opens the image itself, in a new tab.
        <a href={href} target="_blank" rel="noreferrer" aria-label={`Open ${asset.name}`} className="asset-open">
          <PageImage src={asset.url} alt="" className="asset-thumb" loading="lazy" />
        </a>
      ) : (
        <span className="asset-thumb asset-kind" aria-hidden="true">
          {asset.kind === "text" ? "TXT" : "FILE"}
        </span>
      )}
      <span className="asset-about">
        <strong title={asset.name}>{asset.name}</strong>
        <small>
          {asset.content_type} · {formatBytes(asset.size)} ·{" "}
          <time dateTime={asset.created_at} title={new Date(asset.created_at).toLocaleString()}>
            {timeAgo(asset.created_at)}
          </time>
        </small>
      </span>
      <span className="asset-buttons">
        {asset.kind === "text" ? (
          <button
            type="button"
            aria-label={`${showText ? "Hide" : "Show"} text of ${asset.name}`}
            aria-expanded={showText}
            aria-controls={showText ? `text-${asset.id}` : undefined}
            onClick={() => setShowText((shown) => !shown)}
          >
            {showText ? "Hide" : "Show"} text
          </button>
        ) : null}
        <a href={href} download={asset.name} aria-label={`Download ${asset.name}`}>
          Download
        </a>
        {onAdd ? (
          <button type="button" aria-label={`Add to workflow: ${asset.name}`} onClick={onAdd}>
            Add to workflow
          </button>
        ) : null}
        {ask ? (
          <button
            type="button"
            aria-label={`Ask the agent about ${asset.name}`}
            onClick={() => ask(`About my asset "${asset.name}" (${asset.id}): `)}
          >
            Ask the agent
          </button>
        ) : null}
        <button type="button" aria-label={`Delete ${asset.name}`} onClick={onDelete}>
          Delete
        </button>
      </span>
      {showText ? <AssetText asset={asset} /> : null}
    </li>
  );
}

export function AssetsView({ calls, visible, ask, addToWorkflow }: AssetsViewProps) {
  const [query, setQuery] = useState("");
  const [kind, setKind] = useState("");
  const [read, setRead] = useState<{ assets: Asset[]; count: number } | undefined>();
  const [shown, setShown] = useState(PAGE);
  /** What the person's last act did (uploaded, deleted). */
  const [notice, setNotice] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  /** The file going up now and how much of it has (a bar beside the notice, not re-announced). */
  const [sending, setSending] = useState<Sending | undefined>();
  const [deleting, setDeleting] = useState<{ asset: Asset; opener: Element | null } | undefined>();
  const finder = useRef<HTMLInputElement>(null);
  /** The uploads going on (each batch of files a person gave), for `Stop uploading`. */
  const uploads = useRef(new Set<AbortController>());
  const [reads, setReads] = useState(0);
  const reread = useCallback(() => setReads((n) => n + 1), []);
  const wanted = query.trim();

  // biome-ignore lint/correctness/useExhaustiveDependencies: `reads` asks for a read after the person's own act
  useEffect(() => {
    if (!visible) return;
    let live = true;
    const timer = setTimeout(async () => {
      const args = { limit: shown, ...(kind ? { content_type: kind } : {}), ...(wanted ? { query: wanted } : {}) };
      const listed = await calls.invoke("assets", "list", [args]);
      if (!live) return;
      if (listed.ok) {
        setRead(listed.value as { assets: Asset[]; count: number });
        setProblem(undefined);
      } else setProblem(`The assets could not be read: ${listed.error.message}`);
    }, TYPING_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [calls, visible, kind, wanted, shown, reads]);

  const upload = async (files: readonly File[]) => {
    if (files.length === 0) return;
    const stop = new AbortController();
    uploads.current.add(stop);
    setNotice(`Uploading ${plural(files.length, "file")}…`);
    const refused: string[] = [];
    let kept = 0;
    for (const file of files) {
      if (stop.signal.aborted) break;
      setSending({ name: file.name, fraction: 0 });
      const saved = await calls
        .saveFile(file, (fraction) => setSending({ name: file.name, fraction }), stop.signal)
        .catch(() => undefined);
      if (!saved) refused.push(`${file.name}: the browser could not read it, or the page lost the server.`);
      else if (saved.ok) kept++;
      else if (saved.error.code !== "cancelled") refused.push(`${file.name}: ${saved.error.message}`);
    }
    uploads.current.delete(stop);
    if (uploads.current.size === 0) setSending(undefined);
    const stopped = stop.signal.aborted ? `Stopped: ${kept} of ${plural(files.length, "file")} uploaded.` : undefined;
    setNotice(stopped ?? (kept > 0 ? `Uploaded ${plural(kept, "file")}.` : undefined));
    setProblem(refused.length > 0 ? `Not uploaded: ${refused.join(" ")}` : undefined);
    reread();
  };

  const assets = read?.assets ?? [];
  const filtered = wanted !== "" || kind !== "";
  return (
    <section className="assets-view" aria-label="Assets" {...takeDroppedFiles((files) => void upload(files))}>
      <div className="toolbar">
        <input
          ref={finder}
          type="search"
          aria-label="Find assets"
          placeholder="Find by name"
          maxLength={200}
          value={query}
          onChange={(event) => {
            setQuery(event.target.value);
            setShown(PAGE);
          }}
        />
        <label>
          Show{" "}
          <select
            value={kind}
            onChange={(event) => {
              setKind(event.target.value);
              setShown(PAGE);
            }}
          >
            {KINDS.map((k) => (
              <option key={k.prefix} value={k.prefix}>
                {k.label}
              </option>
            ))}
          </select>
        </label>
        <FilesButton label="Upload files" inputLabel="Files to upload" onFiles={(files) => void upload(files)}>
          Upload
        </FilesButton>
      </div>
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      {sending ? (
        <UploadProgress
          sending={sending}
          onStop={() => {
            for (const stop of uploads.current) stop.abort();
          }}
        />
      ) : null}
      <p className="status">
        {read === undefined
          ? "Reading the assets…"
          : read.count === 0
            ? filtered
              ? "No asset matches."
              : "No assets yet: upload files here (or drop them), or let an action save some."
            : `${plural(read.count, filtered ? "asset matches" : "asset", filtered ? "assets match" : "assets")}.`}
      </p>
      {problem ? (
        <p className="field-problem" role="alert">
          {problem}
        </p>
      ) : null}
      {assets.length > 0 ? (
        <ul className="asset-list" aria-label="Your assets">
          {assets.map((asset) => (
            <AssetRow
              key={asset.id}
              asset={asset}
              ask={ask}
              onAdd={
                addToWorkflow &&
                (() =>
                  void addToWorkflow(asset).then((why) => {
                    setProblem(why && `Not added: ${why}`);
                    setNotice(why ? undefined : `Added “${asset.name}” to the workflow.`);
                  }))
              }
              onDelete={() => setDeleting({ asset, opener: document.activeElement })}
            />
          ))}
        </ul>
      ) : null}
      {read && read.count > assets.length ? (
        <button type="button" onClick={() => setShown((n) => n + PAGE)}>
          Show more ({read.count - assets.length} older)
        </button>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title="Delete this asset?"
          text={`“${deleting.asset.name}” will be deleted. Workflows, jobs and conversations that refer to it will no longer find it. This cannot be undone.`}
          confirmLabel="Delete"
          onConfirm={async () => {
            const deleted = await calls.invoke("assets", "delete", [deleting.asset.id]);
            return deleted.ok ? undefined : deleted.error.message;
          }}
          onClose={(done) => {
            const { asset, opener } = deleting;
            setDeleting(undefined);
            // Once the dialog is gone: back to its Delete when kept, to the search field when deleted.
            queueMicrotask(() => (done ? finder.current : opener instanceof HTMLElement ? opener : null)?.focus());
            if (!done) return;
            setNotice(`Deleted “${asset.name}”.`);
            reread();
          }}
        />
      ) : null}
    </section>
  );
}
