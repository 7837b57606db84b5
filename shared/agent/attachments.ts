/**
 * How a request names the files a person attached to it (the panel's `Attach`, the terminal's
 * `--attach`): each is saved as one of their assets first, then named on a line of its own with its
 * asset id, which the agent's actions (`assets.get`) and `view_image` take.
 */
import { z } from "zod";

export interface AttachedAsset {
  name: string;
  id: string;
  content_type: string;
  size: number;
}

/** What a note needs of `assets.save`'s answer, checked: a caller reads it from the wire. */
const SavedAsset = z.object({ id: z.string().min(1), content_type: z.string().min(1), size: z.number().int().min(0) });

/** The attachment `assets.save` answered for the file `name`, or undefined when the answer is not one. */
export function attachedAsset(name: string, saved: unknown): AttachedAsset | undefined {
  const read = SavedAsset.safeParse(saved);
  return read.success ? { name, ...read.data } : undefined;
}

/** Bytes as a person reads them: `94 B`, `12 KB`, `3.4 MB`. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The lines a request carries for its attached files (nothing when there are none). */
export function attachmentNote(assets: readonly AttachedAsset[]): string {
  if (assets.length === 0) return "";
  const lines = assets.map((a) => `- ${a.name}: asset ${a.id} (${a.content_type}, ${sizeText(a.size)})`);
  return `Attached (my assets):\n${lines.join("\n")}`;
}

/** The request as sent: the person's words, then the note naming what they attached. */
export function withAttachments(request: string, assets: readonly AttachedAsset[]): string {
  return [request.trim(), attachmentNote(assets)].filter(Boolean).join("\n\n");
}
