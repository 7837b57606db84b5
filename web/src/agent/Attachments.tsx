/**
 * Files attached to the agent's next message: each is saved as one of the person's assets when it is
 * chosen (their own act, as an upload in the inspector is), and the message that is sent names them
 * with their asset ids, which the agent's actions and `view_image` take. A file the server refuses
 * (too large, an image it cannot read) says why on its own line and is not sent.
 */
import { useCallback, useRef, useState } from "react";
import { type AttachedAsset, attachedAsset, sizeText } from "../../../shared/agent/attachments.ts";
import type { UserCalls } from "../editor/user-calls.ts";
import { FilesButton } from "../FilesButton.tsx";

export interface Attachment {
  /** Stable for the list (two files may share a name). */
  key: number;
  name: string;
  state: { status: "saving" } | { status: "saved"; asset: AttachedAsset } | { status: "refused"; why: string };
}

const UNREADABLE_ANSWER = "capability_failed: the server's answer did not describe the saved asset.";
const UNREADABLE_FILE = "capability_failed: the browser could not read the file, or the page lost the server.";

/** The assets a message names: those saved (a refused file is not sent). */
export function savedAssets(items: readonly Attachment[]): AttachedAsset[] {
  return items.flatMap((item) => (item.state.status === "saved" ? [item.state.asset] : []));
}

export function useAttachments(calls: UserCalls | undefined) {
  const [items, setItems] = useState<Attachment[]>([]);
  const next = useRef(0);
  const update = useCallback((key: number, state: Attachment["state"]) => {
    setItems((now) => now.map((item) => (item.key === key ? { ...item, state } : item)));
  }, []);
  const add = useCallback(
    (files: readonly File[]) => {
      if (!calls) return;
      for (const file of files) {
        const key = next.current++;
        setItems((now) => [...now, { key, name: file.name, state: { status: "saving" } }]);
        void (async () => {
          const saved = await calls.saveFile(file);
          if (!saved.ok) return update(key, { status: "refused", why: saved.error.message });
          const asset = attachedAsset(file.name, saved.value);
          update(key, asset ? { status: "saved", asset } : { status: "refused", why: UNREADABLE_ANSWER });
        })().catch(() => update(key, { status: "refused", why: UNREADABLE_FILE }));
      }
    },
    [calls, update],
  );
  const remove = useCallback((key: number) => setItems((now) => now.filter((item) => item.key !== key)), []);
  return {
    items,
    add,
    remove,
    /** Sets the list (cleared on send, given back when the request never reached the conversation). */
    set: setItems,
    saving: items.some((item) => item.state.status === "saving"),
    /** Whether attaching is possible here (the page's own calls are there). */
    available: calls !== undefined,
  };
}

export type Attachments = ReturnType<typeof useAttachments>;

/** `Attach files` (beside Send). */
export function AttachButton({ attachments, disabled }: { attachments: Attachments; disabled: boolean }) {
  if (!attachments.available) return null;
  return (
    <FilesButton
      label="Attach files"
      inputLabel="Files to attach"
      title="Attach files: they are saved to your assets and named to the agent"
      disabled={disabled}
      onFiles={(files) => attachments.add(files)}
    >
      Attach
    </FilesButton>
  );
}

/** What is attached to the next message, each with its state and `Remove` (nothing when none is). */
export function AttachmentList({ attachments }: { attachments: Attachments }) {
  if (attachments.items.length === 0) return null;
  return (
    <ul className="attachments" aria-label="Attached files">
      {attachments.items.map((item) => (
        <li key={item.key} className={item.state.status}>
          {item.name}
          {item.state.status === "saving" ? " (saving…)" : null}
          {item.state.status === "saved" ? ` (${sizeText(item.state.asset.size)})` : null}
          {item.state.status === "refused" ? <span role="alert">: not attached: {item.state.why}</span> : null}{" "}
          <button type="button" aria-label={`Remove ${item.name}`} onClick={() => attachments.remove(item.key)}>
            Remove
          </button>
        </li>
      ))}
    </ul>
  );
}
