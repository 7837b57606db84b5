/**
 * Files the page hands the person: a name any file system takes, and the browser's download of a text.
 */

/** `name` without what a file system refuses (separators, reserved and control characters), at most 120 characters, with `extension`. */
export function safeFileName(name: string, fallback: string, extension: string): string {
  const safe = [...name].map((c) => (c < " " || '\\/:*?"<>|'.includes(c) ? " " : c)).join("");
  const base = safe.replace(/ +/g, " ").trim() || fallback;
  return `${base.slice(0, 120)}.${extension}`;
}

/** Downloads `text` as `fileName` (the browser's own download, as a link with `download` does). */
export function downloadText(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
