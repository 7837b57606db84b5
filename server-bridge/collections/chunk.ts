/**
 * Splits a document into chunks of about `size` characters for full-text indexing, at the widest
 * boundary that fits: paragraphs, then sentences, then words, then (for a word longer than a chunk)
 * a hard cut. Each chunk after the first starts with the last words of the one before (about a tenth
 * of `size`), so a phrase that straddles a boundary is still found in one chunk.
 */

function units(text: string, size: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const p = paragraph.trim();
    if (p === "") continue;
    if (p.length <= size) {
      out.push(p);
      continue;
    }
    for (const sentence of p.split(/(?<=[.!?])\s+/)) {
      if (sentence.length <= size) {
        out.push(sentence);
        continue;
      }
      for (const word of sentence.split(/\s+/)) {
        for (let i = 0; i < word.length; i += size) out.push(word.slice(i, i + size));
      }
    }
  }
  return out;
}

/** The last whole words of `chunk` within `max` characters. */
function tail(chunk: string, max: number): string {
  if (max <= 0) return "";
  const words = chunk.split(/\s+/);
  let out = "";
  for (let i = words.length - 1; i >= 0; i--) {
    const next = out === "" ? (words[i] as string) : `${words[i]} ${out}`;
    if (next.length > max) break;
    out = next;
  }
  return out;
}

export function chunkText(text: string, size: number): string[] {
  const overlap = Math.floor(size / 10);
  const chunks: string[] = [];
  let current = "";
  for (const unit of units(text, size)) {
    const joined = current === "" ? unit : `${current}\n${unit}`;
    if (joined.length <= size) {
      current = joined;
      continue;
    }
    chunks.push(current);
    const carried = tail(current, overlap);
    current = carried === "" ? unit : `${carried} ${unit}`;
  }
  if (current !== "") chunks.push(current);
  return chunks;
}
