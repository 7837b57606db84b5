/**
 * Executors of the asset, image and http families. Every effect is a capability call through
 * `ctx.invoke` (the gate): images are read with get_asset and saved with save_asset, requests go out
 * through http_request. Only the pixel work itself (sharp) runs here.
 *
 * Workflow values are host values, as capabilities answer them: an asset is an `AssetRef`, bytes a
 * `Uint8Array` (the job row keeps them in the boundary encoding). An asset input may also be its id.
 */
import { AssetRef, assetIdOf } from "../../../shared/protocol/values.ts";
import { type ImageOp, imageInfo, transform } from "../../assets/images.ts";
import { RASTER_FORMATS, type RasterType } from "../../assets/media-types.ts";
import { type Executor, effect, type NodeContext, NodeError, type NodeInputs } from "../types.ts";

interface AssetView {
  id: string;
  name: string;
  kind: string;
  content_type: string;
  content?: string;
  bytes?: unknown;
  asset?: unknown;
}

/** The asset id an input names: a reference or the id itself. */
function requireAssetId(value: unknown, what: string): string {
  if (typeof value === "string" && value !== "") return value;
  const id = assetIdOf(value);
  if (id === undefined)
    throw new NodeError(`${what} must be an asset reference (as an asset node outputs) or an asset id.`);
  return id;
}

/** An asset's metadata as a workflow value: the reference as an `AssetRef`, no content. */
function metadataOf(asset: AssetView): Record<string, unknown> {
  const { content: _content, bytes: _bytes, ...rest } = asset;
  return { ...rest, asset: new AssetRef(asset.id) };
}

/** Image bytes from bytes or an asset (read through get_asset), and a name to derive new names from. */
async function imageBytes(
  ctx: NodeContext,
  value: unknown,
  node: string,
): Promise<{ bytes: Uint8Array; stem: string }> {
  if (value instanceof Uint8Array) return { bytes: value, stem: "image" };
  const id = requireAssetId(value, `${node}: input "image"`);
  const asset = (await effect(ctx, "get_asset", { asset_id: id, include_bytes: true })) as AssetView;
  const bytes = asset.bytes;
  if (asset.kind !== "image" || !(bytes instanceof Uint8Array)) {
    throw new NodeError(`${node}: asset ${id} is ${asset.content_type}, not an image.`);
  }
  return { bytes, stem: asset.name.replace(/\.[^.]*$/, "") || "image" };
}

const EXTENSIONS: Record<RasterType, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "image/avif": "avif",
  "image/tiff": "tiff",
};

function imageExecutor(node: string, suffix: string, opOf: (inputs: NodeInputs) => ImageOp): Executor {
  return async (inputs, ctx) => {
    const source = await imageBytes(ctx, inputs.image, node);
    const result = await transform(source.bytes, opOf(inputs), `${node}: the image`);
    const name =
      typeof inputs.name === "string" && inputs.name !== ""
        ? inputs.name
        : `${source.stem}-${suffix}.${EXTENSIONS[result.contentType]}`;
    const saved = (await effect(ctx, "save_asset", {
      name,
      content: result.bytes,
      content_type: result.contentType,
    })) as AssetView;
    return { output: new AssetRef(saved.id), metadata: metadataOf(saved) };
  };
}

const formatType = (format: string) =>
  (Object.keys(RASTER_FORMATS) as RasterType[]).find((type) => RASTER_FORMATS[type] === format) as RasterType;

const num = (value: unknown) => (typeof value === "number" ? value : undefined);

export const mediaExecutors: Record<string, Executor> = {
  "asset.load": async (inputs, ctx) => {
    const id = requireAssetId(inputs.asset, 'asset.load: input "asset"');
    const asset = (await effect(ctx, "get_asset", { asset_id: id })) as AssetView;
    return { output: asset.content ?? new AssetRef(asset.id), metadata: metadataOf(asset) };
  },
  "asset.save": async (inputs, ctx) => {
    const args: Record<string, unknown> = { name: inputs.name, content: inputs.content };
    if (typeof inputs.content_type === "string") args.content_type = inputs.content_type;
    const saved = (await effect(ctx, "save_asset", args)) as AssetView;
    return { output: new AssetRef(saved.id), metadata: metadataOf(saved) };
  },

  "image.resize": imageExecutor("image.resize", "resized", (inputs) => ({
    op: "resize",
    width: num(inputs.width),
    height: num(inputs.height),
    fit: inputs.fit as "inside",
  })),
  "image.crop": imageExecutor("image.crop", "cropped", (inputs) => ({
    op: "crop",
    left: inputs.left as number,
    top: inputs.top as number,
    width: inputs.width as number,
    height: inputs.height as number,
  })),
  "image.grayscale": imageExecutor("image.grayscale", "gray", () => ({ op: "grayscale" })),
  "image.convert": imageExecutor("image.convert", "converted", (inputs) => ({
    op: "convert",
    to: formatType(inputs.format as string),
    quality: num(inputs.quality),
  })),
  "image.metadata": async (inputs, ctx) => {
    const source = await imageBytes(ctx, inputs.image, "image.metadata");
    return { output: await imageInfo(source.bytes, "image.metadata: the image") };
  },

  "http.request": async (inputs, ctx) => {
    const args: Record<string, unknown> = {
      url: inputs.url,
      method: inputs.method,
      headers: inputs.headers,
      timeout_ms: inputs.timeout_ms,
      response_type: inputs.response_type,
    };
    if (inputs.body !== undefined) args.body = inputs.body;
    const response = (await effect(ctx, "http_request", args)) as Record<string, unknown>;
    const body = response.json ?? response.text ?? response.bytes ?? null;
    return { output: response, status: response.status, body };
  },
};
