/**
 * Node types over assets, images and the web (part of the catalog in node-catalog.ts). Images travel
 * between nodes as asset references (`{"$asset": "<id>"}`): each image node reads its input through
 * `get_asset` and saves its result through `save_asset`, so its effects pass the gate like any call.
 * An image input may also be bytes (`{"$bytes": base64}`, e.g. an http.request body).
 */
import { input, out, req } from "./node-catalog-parts.ts";
import type { InputSpec, NodeEffect, NodeType } from "./node-types.ts";

export const IMAGE_FORMATS = ["png", "jpeg", "webp", "gif", "avif", "tiff"] as const;

const READ_ASSET: NodeEffect = { capability: "get_asset", category: "read" };
const SAVE_ASSET: NodeEffect = { capability: "save_asset", category: "write" };

const image = input("image", "image", "The image: an {$asset} reference, an asset id, or {$bytes}", req);
const name = input("name", "string", "Name of the new asset; derived from the source when unset");
const imageOutputs = [
  out("image", "The new image asset: {$asset: id}"),
  out("json", "The new asset's id, name, content_type, size, width, height", "metadata"),
];

/** An image operation: reads the image, saves the result as a new asset. */
const imageOp = (id: string, title: string, description: string, inputs: InputSpec[]): NodeType => ({
  id,
  title,
  description: `${description} Saves the result as a new asset (save_asset, a write: it asks in default mode).`,
  inputs: [image, ...inputs, name],
  outputs: imageOutputs,
  effects: [READ_ASSET, SAVE_ASSET],
});

export const MEDIA_NODE_TYPES: readonly NodeType[] = [
  {
    id: "asset.load",
    title: "Load asset",
    description:
      "Reads an asset (get_asset, a read): the text of a text asset (JSON included, as text), the {$asset} reference itself for images and other files.",
    inputs: [input("asset", "file", "The asset: an {$asset} reference or its id", req)],
    outputs: [out("any", "Text, or the asset reference"), out("json", "The asset's metadata", "metadata")],
    effects: [READ_ASSET],
  },
  {
    id: "asset.save",
    title: "Save asset",
    description:
      "Saves text, a JSON value or bytes as a new asset (save_asset, a write: it asks in default mode). Image types are decoded and re-encoded; bytes that are not an image are refused as one.",
    inputs: [
      input("name", "string", "File name, e.g. notes.txt", req),
      input("content", "any", "Text, a JSON value, or {$bytes}", req),
      input("content_type", "string", "Media type; guessed from the content when unset"),
    ],
    outputs: [out("file", "The new asset: {$asset: id}"), out("json", "The saved asset's metadata", "metadata")],
    effects: [SAVE_ASSET],
  },
  imageOp("image.resize", "Resize image", "Scales an image to a width, a height, or both (fit decides how).", [
    input("width", "number", "Target width in pixels", { min: 1, max: 10_000 }),
    input("height", "number", "Target height in pixels", { min: 1, max: 10_000 }),
    input("fit", "string", "inside keeps the aspect ratio within the box; cover crops; fill stretches", {
      default: "inside",
      options: ["inside", "outside", "cover", "contain", "fill"],
    }),
  ]),
  imageOp("image.crop", "Crop image", "Cuts out a rectangle of an image.", [
    input("left", "number", "Left edge in pixels", { default: 0, min: 0 }),
    input("top", "number", "Top edge in pixels", { default: 0, min: 0 }),
    input("width", "number", "Width of the area", { ...req, min: 1 }),
    input("height", "number", "Height of the area", { ...req, min: 1 }),
  ]),
  imageOp("image.grayscale", "Grayscale image", "Turns an image into shades of gray.", []),
  imageOp("image.convert", "Convert image", "Re-encodes an image in another format.", [
    input("format", "string", "The new format", { ...req, options: [...IMAGE_FORMATS] }),
    input("quality", "number", "Quality for lossy formats (1-100)", { min: 1, max: 100 }),
  ]),
  {
    id: "image.metadata",
    title: "Image metadata",
    description: "Reads an image's width, height, content_type, channels, has_alpha and size (get_asset, a read).",
    inputs: [image],
    outputs: [out("json", "The image's metadata")],
    effects: [READ_ASSET],
  },
  {
    id: "http.request",
    title: "HTTP request",
    description:
      "Sends an HTTP(S) request from the server (http_request, external: it asks in default mode). Private and loopback addresses are refused unless the operator allows the host.",
    inputs: [
      input("url", "string", "An http:// or https:// URL", req),
      input("method", "string", "The method", {
        default: "GET",
        options: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      }),
      input("headers", "json", "Request headers by name", { default: {} }),
      input("body", "any", "Text, a JSON value, or {$bytes}"),
      input("timeout_ms", "number", "Deadline for the whole exchange", { default: 30_000, min: 100, max: 120_000 }),
      input("response_type", "string", "How to read the body", {
        default: "auto",
        options: ["auto", "text", "json", "bytes"],
      }),
    ],
    outputs: [
      out("json", "The whole response: status, headers, url, body fields"),
      out("number", "The status code", "status"),
      out("any", "The body: text, parsed JSON, or {$bytes}", "body"),
    ],
    effects: [{ capability: "http_request", category: "external" }],
  },
];
