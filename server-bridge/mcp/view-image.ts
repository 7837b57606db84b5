/**
 * `view_image`: pixels for the model, which cannot ride the JSON observation. The image is one of the
 * user's image assets (by id or `asset://` URI) or a `data:` URI with a size cap; `file://` and remote
 * URLs are refused (the server never reads paths or fetches for this tool). The picture is decoded and
 * re-encoded with sharp (upright, metadata stripped): a region is cropped in source pixels, then the
 * longest side is capped (768 px for `low`, 2048 for `high`). Failures are tool errors with a code and
 * a message for the model; nothing from the host (paths, decoder internals) leaks.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import sharp, { type Metadata } from "sharp";
import { DATA_URI_MAX_BYTES, type ViewImageInput } from "../../shared/agent/tools.ts";
import { CodedError, type ErrorCode, isCodedError, toFailure } from "../../shared/protocol/errors.ts";
import { base64ToBytes } from "../../shared/protocol/values.ts";
import type { AppServices } from "../app-services.ts";
import { imageWork } from "../assets/image-work.ts";
import { MAX_INPUT_PIXELS } from "../assets/images.ts";
import { sniffRaster } from "../assets/media-types.ts";
import { toolError } from "./tools.ts";

const LONGEST_SIDE = { low: 768, high: 2048 } as const;

/** A refusal with its code, answered as a tool error by the handler's catch. */
function refused(code: ErrorCode, message: string): CodedError {
  return new CodedError({ code, message });
}

interface Source {
  bytes: Uint8Array;
  label: string;
}

async function loadSource(app: AppServices, userId: string, ref: string): Promise<Source> {
  const trimmed = ref.trim();
  if (/^data:/i.test(trimmed)) {
    const match = trimmed.match(/^data:(image\/[\w.+-]+)?(?:;[\w-]+=[\w.-]+)*;base64,([A-Za-z0-9+/=\s]*)$/i);
    if (!match)
      throw refused("invalid_call", "Only base64 data: URIs of images are accepted (data:image/png;base64,...).");
    const body = (match[2] ?? "").replace(/\s+/g, "");
    if (Math.floor((body.length * 3) / 4) > DATA_URI_MAX_BYTES) {
      throw refused(
        "invalid_call",
        `The data: URI holds more than ${DATA_URI_MAX_BYTES >> 20} MiB; save the image as an asset and view it by id.`,
      );
    }
    return { bytes: base64ToBytes(body, "image_id"), label: "data: URI" };
  }
  if (/^file:/i.test(trimmed)) {
    throw refused(
      "invalid_call",
      "file:// paths are not read by this server. Save the image as an asset (assets.save in execute_code) and view it by id.",
    );
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) && !/^asset:\/\//i.test(trimmed)) {
    throw refused(
      "invalid_call",
      "Remote URLs are not fetched by view_image. Fetch the image with web.request in execute_code, save it with assets.save, then view it by id.",
    );
  }
  const id = trimmed.replace(/^asset:\/\//i, "");
  const { assets } = app;
  const row = /^[\w-]{1,200}$/.test(id) ? await assets.find(userId, id) : undefined;
  if (!row)
    throw refused(
      "invalid_call",
      `No image asset "${id.slice(0, 200)}". List them with assets.list({content_type: "image/"}) in execute_code.`,
    );
  if (row.kind !== "image")
    throw refused("invalid_call", `Asset ${row.id} is ${row.content_type}, not an image view_image can show.`);
  return { bytes: await assets.read(row), label: `${row.id} "${row.name}"` };
}

async function render(source: Source, input: ViewImageInput) {
  const type = sniffRaster(source.bytes);
  if (!type) throw refused("invalid_call", `${source.label} is not a PNG, JPEG, WebP, GIF, AVIF or TIFF image.`);
  const open = () => sharp(source.bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error", pages: 1 }).rotate();
  let meta: Metadata;
  try {
    meta = await imageWork.run(() => sharp(source.bytes, { limitInputPixels: MAX_INPUT_PIXELS, pages: 1 }).metadata());
  } catch {
    throw refused(
      "invalid_call",
      `${source.label} could not be decoded as an image (corrupt, truncated, or over ${MAX_INPUT_PIXELS} pixels).`,
    );
  }
  const width = meta.autoOrient?.width ?? meta.width ?? 0;
  const height = meta.autoOrient?.height ?? meta.height ?? 0;
  const pipeline = open();
  const region = input.region;
  if (region) {
    if (region.x + region.width > width || region.y + region.height > height) {
      throw refused(
        "invalid_call",
        `The region ${region.width}x${region.height} at (${region.x}, ${region.y}) does not fit in the ${width}x${height} image.`,
      );
    }
    pipeline.extract({ left: region.x, top: region.y, width: region.width, height: region.height });
  }
  const cap = LONGEST_SIDE[input.detail ?? "high"];
  pipeline.resize({ width: cap, height: cap, fit: "inside", withoutEnlargement: true });
  // PNG keeps transparency and flat graphics exact; photographs travel smaller as JPEG.
  const png = meta.hasAlpha === true || type === "image/png" || type === "image/gif";
  try {
    const encoded = png ? pipeline.png() : pipeline.jpeg({ quality: 85 });
    const { data, info } = await imageWork.run(() => encoded.toBuffer({ resolveWithObject: true }));
    return { data, info, width, height, type, mimeType: png ? "image/png" : "image/jpeg" };
  } catch {
    throw refused("invalid_call", `${source.label} could not be decoded as an image (corrupt or truncated data).`);
  }
}

export async function viewImage(app: AppServices, userId: string, input: ViewImageInput): Promise<CallToolResult> {
  try {
    const source = await loadSource(app, userId, input.image_id);
    const out = await render(source, input);
    const region = input.region
      ? `, region ${input.region.width}x${input.region.height} at (${input.region.x}, ${input.region.y})`
      : "";
    const text =
      `${source.label}: ${out.width}x${out.height} ${out.type}, ${source.bytes.byteLength} bytes${region}; ` +
      `shown ${out.info.width}x${out.info.height} ${out.mimeType} (detail ${input.detail ?? "high"}).` +
      (input.question ? `\nQuestion: ${input.question}` : "");
    return {
      content: [
        { type: "image", data: out.data.toString("base64"), mimeType: out.mimeType },
        { type: "text", text },
      ],
    };
  } catch (err) {
    // An uncoded error, or a coded one carrying the host error behind it (a disk, a bucket): logged.
    if (!isCodedError(err) || err.cause !== undefined)
      app.log("error", "view_image failed", isCodedError(err) ? err.cause : err);
    const { code, message } = toFailure(err, "The image could not be shown; nothing more is known.");
    return toolError(code, message);
  }
}
