/**
 * An approval's arguments for the dialog: the JSON text with every image in it replaced by a short
 * label (`[image 1: png, 3.2 kB]`), and the images themselves for thumbnails. An image is bytes
 * (`{$bytes}`) whose content is a raster image, or an asset (`{$asset}`, or the id under a key ending
 * in `asset_id`). Bytes that are not an image are shown by their size, never as base64 text.
 */
export interface ArgImage {
  label: string;
  /** A `data:` URL of the bytes, or the asset's address. */
  src: string;
}

const SIGNATURES: [string, number[]][] = [
  ["png", [0x89, 0x50, 0x4e, 0x47]],
  ["jpeg", [0xff, 0xd8, 0xff]],
  ["gif", [0x47, 0x49, 0x46, 0x38]],
  ["webp", [0x52, 0x49, 0x46, 0x46]],
];

/** The raster format of base64 bytes, by their first bytes; undefined when they are not an image. */
export function imageFormat(base64: string): string | undefined {
  let head: string;
  try {
    head = atob(base64.slice(0, 16));
  } catch {
    return undefined;
  }
  const bytes = [...head].map((c) => c.charCodeAt(0));
  const found = SIGNATURES.find(([, sig]) => sig.every((b, i) => bytes[i] === b));
  if (found?.[0] === "webp" && head.slice(8, 12) !== "WEBP") return undefined;
  return found?.[0];
}

const size = (base64: string) => {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  const n = Math.floor((base64.length * 3) / 4) - padding;
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} kB`;
};

export function describeArgs(args: unknown): { text: string; images: ArgImage[] } {
  const images: ArgImage[] = [];
  const text =
    JSON.stringify(
      args,
      (key, value: unknown) => {
        if (typeof value === "object" && value !== null && !Array.isArray(value)) {
          const keys = Object.keys(value);
          const bytes = (value as { $bytes?: unknown }).$bytes;
          if (keys.length === 1 && typeof bytes === "string") {
            const format = imageFormat(bytes);
            if (!format) return `[${size(bytes)} of bytes]`;
            const label = `image ${images.length + 1}: ${format}, ${size(bytes)}`;
            images.push({ label, src: `data:image/${format};base64,${bytes}` });
            return `[${label}]`;
          }
          const asset = (value as { $asset?: unknown }).$asset;
          if (keys.length === 1 && typeof asset === "string") {
            const label = `image ${images.length + 1}: asset ${asset}`;
            images.push({ label, src: `/assets/${encodeURIComponent(asset)}` });
            return `[asset ${asset}]`;
          }
        }
        if (typeof value === "string" && key.endsWith("asset_id")) {
          images.push({
            label: `image ${images.length + 1}: asset ${value}`,
            src: `/assets/${encodeURIComponent(value)}`,
          });
        }
        return value;
      },
      2,
    ) ?? "null";
  return { text, images };
}
