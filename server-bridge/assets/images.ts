/**
 * Image handling with sharp. Every raster image that is stored is decoded and re-encoded here, so what
 * is served inline is always a fresh encoding of real pixels (no trailing payload, no polyglot, no
 * metadata). Only bytes that carry a raster signature reach the decoder: SVG and other markup are
 * never rendered on the server. Decoding is bounded by a pixel limit against decompression bombs.
 */
import sharp, { type Sharp } from "sharp";
import { isCodedError } from "../../shared/protocol/errors.ts";
import { failed } from "../capabilities/errors.ts";
import { RASTER_FORMATS, type RasterType, sniffRaster } from "./media-types.ts";

/** Larger inputs are refused before their pixels are allocated (8000 x 5000). */
export const MAX_INPUT_PIXELS = 40_000_000;

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
    const { data, info } = await pipeline.toFormat(format, options).toBuffer({ resolveWithObject: true });
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
    const meta = await decoder(bytes, what).metadata();
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

/** Applies one operation and encodes the result in the source's own type (or the convert target). */
export async function transform(bytes: Uint8Array, op: ImageOp, what = "The image"): Promise<EncodedImage> {
  const source = sniffRaster(bytes);
  const pipeline = decoder(bytes, what).rotate();
  const to = op.op === "convert" ? op.to : (source as RasterType);
  switch (op.op) {
    case "resize":
      if (op.width === undefined && op.height === undefined)
        throw failed("image.resize needs a width, a height, or both.");
      pipeline.resize({ width: op.width, height: op.height, fit: op.fit });
      break;
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
