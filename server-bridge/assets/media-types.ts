/**
 * Media types as assets and HTTP bodies use them: which are text, which are raster images we decode
 * and re-encode (and into which sharp format), and what image bytes say they are.
 */

/** Raster image types: the only ones served inline, each decoded and re-encoded with sharp on save. */
export const RASTER_FORMATS = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/webp": "webp",
  "image/gif": "gif",
  "image/avif": "avif",
  "image/tiff": "tiff",
} as const;

export type RasterType = keyof typeof RASTER_FORMATS;
export type RasterFormat = (typeof RASTER_FORMATS)[RasterType];

const ALIASES: Record<string, string> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "image/x-png": "image/png",
};

/**
 * `Image/JPG; foo=1` -> `image/jpeg`: other parameters dropped; a text type keeps its charset, or gets
 * `utf-8` (always `utf-8` when `utf8` says the bytes were encoded from a string here).
 */
export function normaliseContentType(raw: string, utf8 = false): string {
  const essence = essenceOf(raw);
  const type = ALIASES[essence] ?? essence;
  if (!isTextType(type) || isJsonType(type)) return type;
  const charset = utf8 ? undefined : charsetOf(raw);
  return `${type}; charset=${charset ?? "utf-8"}`;
}

function charsetOf(contentType: string): string | undefined {
  return contentType.match(/;\s*charset\s*=\s*"?([\w.:-]+)"?/i)?.[1]?.toLowerCase();
}

/**
 * The type a browser gives a file of this name, for files a person hands over from disk (the terminal
 * agent's `--attach`; the panel sends the browser's own); undefined for another extension, which the
 * store then judges by the bytes (an image by its magic numbers, else binary).
 */
export function typeOfFileName(name: string): string | undefined {
  const dot = name.lastIndexOf(".");
  return dot < 0 ? undefined : BY_EXTENSION[name.slice(dot).toLowerCase()];
}

const BY_EXTENSION: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
  ".avif": "image/avif",
  ".tif": "image/tiff",
  ".tiff": "image/tiff",
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".tsv": "text/tab-separated-values",
  ".json": "application/json",
  ".html": "text/html",
  ".xml": "application/xml",
  ".svg": "image/svg+xml",
  ".pdf": "application/pdf",
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
};

/** The type without parameters. */
export function essenceOf(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

export function isRasterType(contentType: string): contentType is RasterType {
  return Object.hasOwn(RASTER_FORMATS, essenceOf(contentType));
}

/** Whether a type claims to be an image (SVG included: it claims, but is text and never inline). */
export function claimsImage(contentType: string): boolean {
  return essenceOf(contentType).startsWith("image/");
}

export function isTextType(contentType: string): boolean {
  const type = essenceOf(contentType);
  return (
    type.startsWith("text/") ||
    type.endsWith("+json") ||
    type.endsWith("+xml") ||
    ["application/json", "application/xml", "application/javascript", "application/x-www-form-urlencoded"].includes(
      type,
    )
  );
}

export function isJsonType(contentType: string): boolean {
  const type = essenceOf(contentType);
  return type === "application/json" || type.endsWith("+json");
}

/** The charset parameter a TextDecoder understands, else utf-8. */
export function decodeText(bytes: Uint8Array, contentType: string): string {
  const label = charsetOf(contentType) ?? "utf-8";
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/** The raster type image bytes announce by their magic numbers, if any. */
export function sniffRaster(bytes: Uint8Array): RasterType | undefined {
  const at = (i: number) => bytes[i] ?? -1;
  const ascii = (from: number, text: string) => [...text].every((c, i) => at(from + i) === c.charCodeAt(0));
  if (at(0) === 0x89 && ascii(1, "PNG")) return "image/png";
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return "image/jpeg";
  if (ascii(0, "GIF8")) return "image/gif";
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return "image/webp";
  if (ascii(4, "ftypavif") || ascii(4, "ftypavis")) return "image/avif";
  if (ascii(0, "II*\0") || ascii(0, "MM\0*")) return "image/tiff";
  return undefined;
}
