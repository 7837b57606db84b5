/**
 * The text of a text asset (a CSV, a note, JSON), shown in the Assets tab without downloading it, as a
 * file manager's preview does: its beginning (at most `PREVIEW_BYTES`, read as a stream and stopped
 * there, so a large file costs no more), as plain text in a scrolling box, invisible characters made
 * visible, JSON read whole indented; saying so when it was cut, or why it could not be read. Never
 * rendered as HTML.
 */
import { useEffect, useState } from "react";
import { formatBytes } from "../../../shared/protocol/durations.ts";
import { pageFetch } from "../page-fetch.ts";
import { Revealed } from "../reveal-view.tsx";

export const PREVIEW_BYTES = 32 * 1024;

type Read = { text: string; cut: boolean } | { problem: string };

/** The first `limit` bytes of what `path` answers, as UTF-8 text (a character cut at the end is dropped). */
async function readStart(path: string, limit: number): Promise<Read> {
  const res = await pageFetch(path);
  if (!res.ok || !res.body) return { problem: `The server answered ${res.status}.` };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  const cut = size > limit || !(await reader.read().then((next) => next.done));
  await reader.cancel().catch(() => {});
  const bytes = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - at);
    bytes.set(part, at);
    at += part.length;
    if (at === bytes.length) break;
  }
  // `stream: true` holds back a character the cut split, instead of showing it as U+FFFD.
  return { text: new TextDecoder().decode(bytes, { stream: cut }), cut };
}

/** JSON read whole, indented to be read (a saved JSON value is one long line); anything else as it is. */
function indented(read: Read, json: boolean): Read {
  if (!json || "problem" in read || read.cut) return read;
  try {
    return { ...read, text: JSON.stringify(JSON.parse(read.text), null, 2) };
  } catch {
    return read;
  }
}

/** The asset as the Assets tab lists it (`assets.list`'s metadata): what the preview needs of it. */
export interface TextAsset {
  id: string;
  url: string;
  name: string;
  size: number;
  content_type: string;
}

export function AssetText({ asset }: { asset: TextAsset }) {
  const { id, url: path, name, size } = asset;
  const [read, setRead] = useState<Read | undefined>();
  const json = /^application\/(.+\+)?json\b/i.test(asset.content_type);
  useEffect(() => {
    let live = true;
    void readStart(path, PREVIEW_BYTES)
      .catch(() => ({ problem: "The page lost the server." }))
      .then((answer) => live && setRead(indented(answer, json)));
    return () => {
      live = false;
    };
  }, [path, json]);
  if (read === undefined) return <p className="status">Reading {name}…</p>;
  if ("problem" in read) {
    return (
      <p className="field-problem" role="alert">
        {name} could not be read: {read.problem}
      </p>
    );
  }
  return (
    <div className="asset-text">
      {/* A named region, focusable so that its scrolling box scrolls from the keyboard too. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
      <section id={`text-${id}`} tabIndex={0} aria-label={`Text of ${name}`}>
        <pre>
          <Revealed text={read.text} />
        </pre>
      </section>
      {read.cut ? (
        <small>
          The first {formatBytes(PREVIEW_BYTES)} of {formatBytes(size)}: Download has it all.
        </small>
      ) : null}
    </div>
  );
}
