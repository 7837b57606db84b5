/** Specs of the `assets` namespace (files the user keeps: images, text, data; per user): data only. */
import { z } from "zod";
import { AssetIdArg, BytesArg } from "../../protocol/values.ts";
import { AssetRefOut, BytesOut, DeletedOut, IsoTime } from "../outputs.ts";
import { defineSpec, type ModuleSpecs } from "../types.ts";

/** An asset's metadata: what list, save and get give. */
const Asset = z
  .strictObject({
    id: z.string(),
    asset: AssetRefOut,
    name: z.string(),
    content_type: z.string(),
    kind: z.enum(["image", "text", "binary"]),
    size: z.number().int().describe("Bytes"),
    width: z.number().int().optional().describe("Images only"),
    height: z.number().int().optional().describe("Images only"),
    url: z.string().describe("Where the signed-in user's browser can open it"),
    created_at: IsoTime,
  })
  .meta({ id: "Asset", description: "An asset's metadata" });

/** A media type such as `image/png` or `text/plain; charset=utf-8`. */
const ContentType = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(\s*;.*)?$/, "must be a media type such as image/png");

export const listAssets = defineSpec({
  name: "list_assets",
  method: "list",
  description:
    "List the user's assets, newest first: id, name, content_type, size, width and height (images), created_at, and an {$asset} reference.",
  category: "read",
  input: z.object({
    limit: z.number().int().min(1).max(500).default(50),
    offset: z.number().int().min(0).default(0),
    content_type: z.string().max(100).optional().describe("Only assets whose type starts with this, e.g. image/"),
    query: z.string().max(200).optional().describe("Only assets whose name contains this text"),
  }),
  output: z.strictObject({
    assets: z.array(Asset),
    count: z.number().int().describe("All matching assets, not just this page"),
  }),
});

export const getAsset = defineSpec({
  name: "get_asset",
  method: "get",
  description:
    "Read one asset: its metadata, the text of a text asset (JSON, CSV, SVG, HTML and other text types), width and height of an image. include_bytes also returns the raw bytes (a Uint8Array).",
  category: "read",
  positional: ["asset_id"],
  input: z.object({
    asset_id: AssetIdArg,
    include_bytes: z.boolean().default(false).describe("Also return the content as bytes"),
  }),
  output: z.strictObject({
    ...Asset.shape,
    content: z.string().optional().describe("The text of a text asset"),
    content_truncated: z.literal(true).optional(),
    bytes: BytesOut.optional().describe("With include_bytes"),
  }),
});

export const saveAsset = defineSpec({
  name: "save_asset",
  method: "save",
  description:
    'Save a new asset. content is text, a JSON value, or bytes (a Uint8Array). content_type defaults, for text, to the text type the extension of its name says (report.csv: text/csv; .md, .json, .html, .svg, .xml, .tsv likewise) else text/plain, application/json for JSON, and for bytes to the image type they hold (else application/octet-stream). Images (image/png, image/jpeg, image/webp, image/gif, image/avif, image/tiff) are decoded and re-encoded; bytes that are not such an image are refused. Returns the asset with an {$asset: "<id>"} reference.',
  category: "write",
  positional: ["name", "content", "content_type"],
  input: z.object({
    name: z.string().min(1).max(200).describe("A file name, e.g. chart.png"),
    content: z.union([BytesArg, z.string(), z.json()]).describe("Text, a JSON value, or bytes"),
    content_type: ContentType.optional(),
  }),
  userMessage: (args) => `Save asset "${args.name}"${args.content_type ? ` (${args.content_type})` : ""}`,
  output: Asset,
});

export const deleteAsset = defineSpec({
  name: "delete_asset",
  method: "delete",
  description: "Delete one asset.",
  category: "write",
  positional: ["asset_id"],
  input: z.object({ asset_id: AssetIdArg }),
  userMessage: (args) => `Delete asset ${args.asset_id}`,
  output: DeletedOut,
});

export const assetsModule: ModuleSpecs = {
  name: "assets",
  description: "Assets: files the user keeps (images, text, data), served to the signed-in user at /assets/<id>.",
  specs: [listAssets, getAsset, saveAsset, deleteAsset],
};
