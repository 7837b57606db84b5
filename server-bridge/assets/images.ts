/**
 * Image handling with sharp. Every raster image that is stored is decoded and re-encoded here, so what
 * is served inline is always a fresh encoding of real pixels (no trailing payload, no polyglot, no
 * metadata). Only bytes that carry a raster signature reach the decoder: SVG and other markup are
 * never rendered on the server. Decoding is bounded by a pixel limit against decompression bombs, and
 * so is what an operation makes (a resize may not ask for more pixels than a decode may hold); every
 * decode and encode takes its turn under `imageWork` (assets/image-work.ts).
 */
import sharp, { type Sharp } from "sharp";
import { isCodedError } from "../../shared/protocol/errors.ts";
import { failed } from "../capabilities/errors.ts";
import { imageWork } from "./image-work.ts";
import { RASTER_FORMATS, type RasterType, sniffRaster } from "./media-types.ts";

/** Larger inputs are refused before their pixels are allocated (8000 x 5000). */
export const MAX_INPUT_PIXELS = 40_000_000;
/** Larger results are refused before they are made: the same bound as inputs. */
export const MAX_OUTPUT_PIXELS = MAX_INPUT_PIXELS;

export interface EncodedImage {
  bytes: Uint8Array;
  contentType: RasterType;
  width: number;
  height: number;
}

export type ImageFit = "inside" | "outside" | "cover" | "contain" | "fill";

export type ImageOp =
  | { op: "resize"; width?: number | undefined; height?: number | undefined; fit: ImageFit }
  | { op: "crop"; left: number; top: number; width: number; height: number }
  | { op: "grayscale" }
  | { op: "convert"; to: RasterType; quality?: number | undefined };

/** A sharp pipeline over bytes that must be a raster image; refuses anything else with `what` named. */
function decoder(bytes: Uint8Array, what: string): Sharp {
  if (!sniffRaster(bytes)) {
    throw failed(
      `${what} is not a PNG, JPEG, WebP, GIF, AVIF or TIFF image. Pass real image bytes, or save it with a non-image content_type.`,
    );
  }
  // Animated images keep their first frame: every operation here is on one still picture.
  return sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error", pages: 1 });
}

async function encode(pipeline: Sharp, to: RasterType, what: string, quality?: number): Promise<EncodedImage> {
  const format = RASTER_FORMATS[to];
  const options = quality === undefined ? {} : { quality };
  try {
    const { data, info } = await imageWork.run(() =>
      pipeline.toFormat(format, options).toBuffer({ resolveWithObject: true }),
    );
    return { bytes: new Uint8Array(data), contentType: to, width: info.width, height: info.height };
  } catch (err) {
    throw failed(`${what} could not be decoded as an image (${decoderReason(err)}).`);
  }
}

function decoderReason(err: unknown): string {
  const text = err instanceof Error ? err.message : "";
  if (/pixel limit/i.test(text)) return `it has more than ${MAX_INPUT_PIXELS} pixels`;
  if (/unsupported image format/i.test(text)) return "unsupported or corrupt data";
  return "corrupt or truncated data";
}

/** Decodes and re-encodes image bytes as `to` (upright per EXIF, metadata stripped). */
export function reencode(bytes: Uint8Array, to: RasterType, what = "The content"): Promise<EncodedImage> {
  return encode(decoder(bytes, what).rotate(), to, what);
}

/** Width and height (upright), type, channels and alpha of image bytes. */
export async function imageInfo(bytes: Uint8Array, what = "The image") {
  const sniffed = sniffRaster(bytes);
  try {
    const meta = await imageWork.run(() => decoder(bytes, what).metadata());
    // The size as shown: operations run on the picture turned upright per its EXIF orientation.
    return {
      width: meta.autoOrient?.width ?? meta.width ?? 0,
      height: meta.autoOrient?.height ?? meta.height ?? 0,
      content_type: sniffed,
      channels: meta.channels ?? null,
      has_alpha: meta.hasAlpha ?? false,
      size: bytes.byteLength,
    };
  } catch (err) {
    if (isCodedError(err)) throw err;
    throw failed(`${what} could not be read as an image (${decoderReason(err)}).`);
  }
}

/** The size sharp's resize makes from a `width` x `height` source (enlarging allowed, as the node does). */
export function resizedSize(
  source: { width: number; height: number },
  op: { width?: number | undefined; height?: number | undefined; fit: ImageFit },
): { width: number; height: number } {
  const w0 = Math.max(1, source.width);
  const h0 = Math.max(1, source.height);
  const keep = (n: number) => Math.max(1, Math.round(n));
  // One side given: `fill` keeps the source's other side; every other fit keeps the aspect ratio.
  if (op.height === undefined && op.width !== undefined)
    return { width: op.width, height: op.fit === "fill" ? h0 : keep((op.width * h0) / w0) };
  if (op.width === undefined && op.height !== undefined)
    return { width: op.fit === "fill" ? w0 : keep((op.height * w0) / h0), height: op.height };
  const width = op.width ?? w0;
  const height = op.height ?? h0;
  if (op.fit !== "inside" && op.fit !== "outside") return { width, height };
  const scale = (op.fit === "inside" ? Math.min : Math.max)(width / w0, height / h0);
  return { width: keep(w0 * scale), height: keep(h0 * scale) };
}

/** Applies one operation and encodes the result in the source's own type (or the convert target). */
export async function transform(bytes: Uint8Array, op: ImageOp, what = "The image"): Promise<EncodedImage> {
  const source = sniffRaster(bytes);
  const pipeline = decoder(bytes, what).rotate();
  const to = op.op === "convert" ? op.to : (source as RasterType);
  switch (op.op) {
    case "resize": {
      if (op.width === undefined && op.height === undefined)
        throw failed("image.resize needs a width, a height, or both.");
      const out = resizedSize(await imageInfo(bytes, what), op);
      if (out.width * out.height > MAX_OUTPUT_PIXELS) {
        throw failed(
          `image.resize: the result would be ${out.width}x${out.height} (${out.width * out.height} pixels); at most ${MAX_OUTPUT_PIXELS} pixels are made. Ask for a smaller size.`,
        );
      }
      pipeline.resize({ width: op.width, height: op.height, fit: op.fit });
      break;
    }
    case "crop": {
      const { width, height } = await imageInfo(bytes, what);
      if (op.left + op.width > width || op.top + op.height > height) {
        throw failed(
          `image.crop: the area ${op.width}x${op.height} at (${op.left}, ${op.top}) does not fit in the ${width}x${height} image.`,
        );
      }
      pipeline.extract({ left: op.left, top: op.top, width: op.width, height: op.height });
      break;
    }
    case "grayscale":
      pipeline.grayscale();
      break;
    case "convert":
      break;
    default: {
      const never: never = op;
      return never;
    }
  }
  return encode(pipeline, to, what, op.op === "convert" ? op.quality : undefined);
}
