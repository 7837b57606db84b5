/**
 * Implementations of the `assets` namespace. What `save_asset` stores is checked against what it
 * claims: a raster image type is decoded and re-encoded (so the bytes served inline are real pixels),
 * another image type is refused, and everything else is kept as given and only ever served as an
 * attachment (see assets/serve.ts).
 */
import { deleteAsset, getAsset, listAssets, saveAsset } from "../../shared/capabilities/specs/assets.specs.ts";
import { formatBytes } from "../../shared/protocol/durations.ts";
import { blobsFor } from "../assets/blobs.ts";
import { reencode } from "../assets/images.ts";
import {
  claimsImage,
  decodeText,
  essenceOf,
  isRasterType,
  isTextType,
  normaliseContentType,
  RASTER_FORMATS,
  sniffRaster,
  typeOfFileName,
} from "../assets/media-types.ts";
import { AssetStore, assetView, type NewAsset } from "../assets/store.ts";
import { implement, type ServerRun } from "./define.ts";
import { failed } from "./errors.ts";

/** Text returned by get_asset is cut here; the full content stays available as bytes. */
const MAX_TEXT_CHARS = 1_000_000;
const RASTER_LIST = Object.keys(RASTER_FORMATS).join(", ");

const assetsOf = (run: ServerRun) =>
  run.services.assets ?? new AssetStore(run.services.store, blobsFor({}, run.services.store.dataDir));

/** The text type a file name says (`totals.csv`: text/csv), for text saved without a type. */
function textTypeOfName(name: string): string | undefined {
  const named = typeOfFileName(name);
  return named && isTextType(named) ? `${named}; charset=utf-8` : undefined;
}

/** Content as bytes with the type it claims, before any check of that claim. */
function contentBytes(
  name: string,
  content: unknown,
  claimed: string | undefined,
): { bytes: Uint8Array; contentType: string } {
  if (typeof content === "string") {
    const contentType = claimed
      ? normaliseContentType(claimed, true)
      : (textTypeOfName(name) ?? "text/plain; charset=utf-8");
    if (isRasterType(contentType)) {
      throw failed(
        `content is text but content_type says ${essenceOf(contentType)}: pass the image as bytes (a Uint8Array), not as a string.`,
      );
    }
    return { bytes: new TextEncoder().encode(content), contentType };
  }
  if (content instanceof Uint8Array) {
    const bytes = content;
    return {
      bytes,
      contentType: claimed ? normaliseContentType(claimed) : (sniffRaster(bytes) ?? "application/octet-stream"),
    };
  }
  const contentType = claimed ? normaliseContentType(claimed, true) : "application/json";
  if (claimsImage(contentType)) {
    throw failed(`content is a JSON value but content_type says ${essenceOf(contentType)}; pass image bytes instead.`);
  }
  return { bytes: new TextEncoder().encode(JSON.stringify(content)), contentType };
}

/** Checks a content's claim and turns it into what is stored. */
async function prepareAsset(
  name: string,
  content: unknown,
  claimed: string | undefined,
  maxBytes: number,
): Promise<NewAsset> {
  const { bytes, contentType } = contentBytes(name, content, claimed);
  if (bytes.byteLength > maxBytes) {
    throw failed(
      `The content is ${formatBytes(bytes.byteLength)}; one asset may be at most ${formatBytes(maxBytes)}. Save something smaller.`,
    );
  }
  if (isRasterType(contentType)) {
    const image = await reencode(bytes, contentType, `The content of "${name}" (claimed ${contentType})`);
    return { name, contentType, kind: "image", bytes: image.bytes, width: image.width, height: image.height };
  }
  if (claimsImage(contentType) && essenceOf(contentType) !== "image/svg+xml") {
    throw failed(
      `${essenceOf(contentType)} is not an image type this server stores. Use one of ${RASTER_LIST} (or image/svg+xml for SVG text); convert the image first.`,
    );
  }
  return { name, contentType, kind: isTextType(contentType) ? "text" : "binary", bytes };
}

export default [
  implement(listAssets, async (run, args) => assetsOf(run).list(run.context.user_id, args)),

  implement(getAsset, async (run, args) => {
    const assets = assetsOf(run);
    const row = await assets.require(run.context.user_id, args.asset_id);
    const view = assetView(row);
    if (row.kind !== "text" && !args.include_bytes) return view;
    const bytes = await assets.read(row);
    const text = row.kind === "text" ? decodeText(bytes, row.content_type) : undefined;
    return {
      ...view,
      ...(text === undefined ? {} : { content: text.slice(0, MAX_TEXT_CHARS) }),
      ...(text !== undefined && text.length > MAX_TEXT_CHARS ? { content_truncated: true as const } : {}),
      ...(args.include_bytes ? { bytes } : {}),
    };
  }),

  implement(saveAsset, async (run, args) => {
    const assets = assetsOf(run);
    const prepared = await prepareAsset(args.name, args.content, args.content_type, assets.limits.maxBytes);
    return assetView(await assets.insert(run.context.user_id, prepared));
  }),

  implement(deleteAsset, async (run, args) => {
    await assetsOf(run).delete(run.context.user_id, args.asset_id);
    return { deleted: args.asset_id };
  }),
];
