/**
 * Makes hostile text inert and visible: control, zero-width and bidirectional-override characters
 * become visible markers, so an approval can never show one thing and mean another. Rendering goes
 * through React text nodes only (no HTML injection).
 */
export type Segment = { kind: "text"; text: string } | { kind: "hidden"; code: string };

// C0/C1 controls except \n and \t, zero-width and joiner characters, bidi embeddings/overrides/isolates,
// the BOM, line and paragraph separators, and other format characters.
const INVISIBLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/gu;

export function revealInvisible(text: string): Segment[] {
  const out: Segment[] = [];
  let last = 0;
  for (const match of text.matchAll(INVISIBLE)) {
    const index = match.index ?? 0;
    if (index > last) out.push({ kind: "text", text: text.slice(last, index) });
    const cp = (match[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
    out.push({ kind: "hidden", code: `U+${cp}` });
    last = index + match[0].length;
  }
  if (last < text.length) out.push({ kind: "text", text: text.slice(last) });
  return out;
}
