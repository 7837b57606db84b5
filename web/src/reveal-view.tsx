/** Text rendered inert with its invisible characters shown as markers (see reveal.ts). */
import { revealInvisible } from "./reveal.ts";

export function Revealed({ text }: { text: string }) {
  return (
    <>
      {revealInvisible(text).map((segment, i) =>
        segment.kind === "text" ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional
          <span key={i}>{segment.text}</span>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional
          <span key={i} className="hidden-char" title={`invisible character ${segment.code}`}>
            [{segment.code}]
          </span>
        ),
      )}
    </>
  );
}
