/**
 * What `execute_code` answers: the observation as JSON text and as `structuredContent`, `isError` when
 * it is not `ok`. Image bytes never ride it: a raster image the action returned as bytes is replaced by
 * a marker saying how to show it (save it as an asset, then `view_image`), so a picture never turns
 * into megabytes of base64 in the model's context.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type ErrorCode, failure } from "../../shared/protocol/errors.ts";
import { BYTES_KEY, base64ToBytes } from "../../shared/protocol/values.ts";
import type { Observation } from "../../shared/protocol/worker.ts";
import { sniffRaster } from "../assets/media-types.ts";

const IMAGE_HINT = "Image bytes are not returned here: save them with assets.save and show the asset with view_image.";

function imageMarker(base64: string): unknown {
  // The first 12 bytes (16 base64 characters) are enough to recognise a raster image.
  let head: Uint8Array;
  try {
    head = base64ToBytes(base64.length > 16 ? base64.slice(0, 16) : base64, "head");
  } catch {
    return undefined;
  }
  const type = sniffRaster(head);
  if (!type) return undefined;
  return { image_omitted: { content_type: type, bytes: Math.floor((base64.length * 3) / 4) }, hint: IMAGE_HINT };
}

function withoutImages(value: unknown, depth = 0): unknown {
  if (depth > 64 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => withoutImages(item, depth + 1));
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]?.[0] === BYTES_KEY && typeof entries[0][1] === "string") {
    return imageMarker(entries[0][1]) ?? value;
  }
  return Object.fromEntries(entries.map(([key, item]) => [key, withoutImages(item, depth + 1)]));
}

export function observationResult(observation: Observation): CallToolResult {
  const shown: Observation =
    observation.result === undefined ? observation : { ...observation, result: withoutImages(observation.result) };
  return {
    content: [{ type: "text", text: JSON.stringify(shown) }],
    structuredContent: shown as unknown as Record<string, unknown>,
    isError: !shown.ok,
  };
}

/** An observation for an action that never reached the sandbox (declined admission, no sandbox). */
export function refusedObservation(code: ErrorCode, message: string, started: number): Observation {
  const { code: c, message: m } = failure(code, message);
  return {
    ok: false,
    error: { code: c, message: m },
    logs: [],
    calls: [],
    duration_ms: Math.round(performance.now() - started),
  };
}
