/** The `zip` pack: fflate's zip and unzip, bytes as Uint8Array. */
import { unzipSync, zipSync } from "fflate";
import { z } from "zod";
import { defineExport, definePack } from "./types.ts";

const MAX_BYTES = 50 * 1024 * 1024;
const Bytes = z.instanceof(Uint8Array).refine((b) => b.length <= MAX_BYTES, "at most 50 MiB");

const zip = defineExport({
  name: "zip",
  description: "Make a zip archive from { path: bytes | text }. Returns the archive as a Uint8Array.",
  signature: "zip.zip(files: { [path: string]: Uint8Array | string }, { level?: 0..9 })",
  positional: ["files"],
  loneObject: "files",
  input: z.object({
    files: z.record(z.string().min(1).max(1000), z.union([Bytes, z.string().max(MAX_BYTES)])),
    level: z.number().int().min(0).max(9).default(6),
  }),
  run(args) {
    const encoder = new TextEncoder();
    const files: Record<string, Uint8Array> = Object.create(null);
    for (const [path, content] of Object.entries(args.files)) {
      files[path] = typeof content === "string" ? encoder.encode(content) : content;
    }
    return zipSync(files, { level: args.level as 0 });
  },
});

const unzip = defineExport({
  name: "unzip",
  description: "Read a zip archive. Returns { path: Uint8Array }, or { path: string } with as: 'text'.",
  signature: "zip.unzip(data: Uint8Array, { as?: 'bytes' | 'text' })",
  positional: ["data"],
  input: z.object({ data: Bytes, as: z.enum(["bytes", "text"]).default("bytes") }),
  run(args) {
    const entries = unzipSync(args.data);
    const decoder = new TextDecoder();
    const out: Record<string, Uint8Array | string> = Object.create(null);
    for (const [path, content] of Object.entries(entries)) {
      out[path] = args.as === "text" ? decoder.decode(content) : content;
    }
    return out;
  },
});

export const zipPack = definePack({
  name: "zip",
  description: "Zip archives (fflate): make and read them.",
  exports: [zip, unzip],
});
