/**
 * How asset bytes are named wherever they are kept (a disk's files, a bucket's objects): by their
 * SHA-256, under a folder of its first two hex digits, `<first two hex>/<sha256>`.
 */
export function contentName(sha256: string): string {
  return `${sha256.slice(0, 2)}/${sha256}`;
}

/** The content a name holds, or undefined for a name this scheme never writes (another's, a part). */
export function contentOfName(name: string): string | undefined {
  const found = /^([0-9a-f]{2})\/([0-9a-f]{64})$/.exec(name);
  return found?.[2]?.startsWith(found[1] ?? "") ? found[2] : undefined;
}
