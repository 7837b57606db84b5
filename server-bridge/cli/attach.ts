/**
 * The terminal agent's `--attach <file>`: each file is saved as one of the local user's assets (their
 * own act, as the panel's `Attach` is: never asked, audited as theirs, through the same `assets.save`
 * as any caller, so an image is checked and a quota applies), and the request then names them with
 * their asset ids (shared/agent/attachments.ts).
 */
import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import type { AttachedAsset } from "../../shared/agent/attachments.ts";
import { moduleSpecifier } from "../../shared/capabilities/table.ts";
import { toWire } from "../../shared/protocol/values.ts";
import type { AppServices } from "../app-services.ts";
import { LOCAL_USER } from "../auth/tokens.ts";
import { openLocalRun } from "../runs/local.ts";

/**
 * The type a browser would give a file of this name (the panel sends the browser's), for the files
 * people attach; another extension is left to the store (an image by its bytes, else binary).
 */
const BY_EXTENSION: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
  ".avif": "image/avif",
  ".tif": "image/tiff",
  ".tiff": "image/tiff",
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".tsv": "text/tab-separated-values",
  ".json": "application/json",
  ".html": "text/html",
  ".xml": "application/xml",
  ".svg": "image/svg+xml",
  ".pdf": "application/pdf",
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
};

/** Saves each file; the first that cannot be read or saved stops it, saying which and why. */
export async function attachFiles(
  app: AppServices,
  paths: readonly string[],
): Promise<{ assets: AttachedAsset[] } | { error: string }> {
  if (paths.length === 0) return { assets: [] };
  const local = await openLocalRun(app, { mode: "default" });
  try {
    const assets: AttachedAsset[] = [];
    for (const [i, path] of paths.entries()) {
      let content: Uint8Array;
      try {
        content = new Uint8Array(await readFile(path));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why = code === "ENOENT" ? "there is no such file" : code === "EISDIR" ? "it is a folder" : String(err);
        return { error: `--attach ${path}: ${why}` };
      }
      const name = basename(path);
      const contentType = BY_EXTENSION[extname(name).toLowerCase()];
      const answer = await app.runs.invoke(
        LOCAL_USER,
        {
          runId: local.live.id,
          module: moduleSpecifier("assets"),
          export: "save",
          args: toWire([{ name, content, ...(contentType ? { content_type: contentType } : {}) }], "args"),
          callId: `attach-${i}`,
          actor: "user",
        },
        { hold: false },
      );
      if ("pending" in answer) return { error: `--attach ${path}: the store did not answer` };
      if (!answer.ok) return { error: `--attach ${path}: ${answer.error.message}` };
      const { id, content_type, size } = answer.value as AttachedAsset;
      assets.push({ name, id, content_type, size });
    }
    return { assets };
  } finally {
    await local.end();
  }
}
