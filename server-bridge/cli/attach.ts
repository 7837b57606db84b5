/**
 * The terminal agent's `--attach <file>`: each file is saved as one of the local user's assets (their
 * own act, as the panel's `Attach` is: never asked, audited as theirs, through the same `assets.save`
 * as any caller, so an image is checked and a quota applies), and the request then names them with
 * their asset ids (shared/agent/attachments.ts).
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { type AttachedAsset, attachedAsset } from "../../shared/agent/attachments.ts";
import { moduleSpecifier } from "../../shared/capabilities/table.ts";
import { toWire } from "../../shared/protocol/values.ts";
import type { AppServices } from "../app-services.ts";
import { typeOfFileName } from "../assets/media-types.ts";
import { LOCAL_USER } from "../auth/tokens.ts";
import { openLocalRun } from "../runs/local.ts";

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
        return { error: `--attach ${path}: ${unreadable((err as NodeJS.ErrnoException).code)}` };
      }
      const name = basename(path);
      const contentType = typeOfFileName(name);
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
      const asset = attachedAsset(name, answer.value);
      if (!asset) return { error: `--attach ${path}: the store's answer did not describe the saved asset` };
      assets.push(asset);
    }
    return { assets };
  } finally {
    await local.end();
  }
}

/** Why a file could not be read, in words (the person's own path is named beside it, nothing else). */
function unreadable(code: string | undefined): string {
  if (code === "ENOENT") return "there is no such file";
  if (code === "EISDIR") return "it is a folder";
  if (code === "EACCES" || code === "EPERM") return "it may not be read (permission denied)";
  return `it could not be read (${code ?? "unknown error"})`;
}
