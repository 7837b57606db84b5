/**
 * The conversation's toolbar: the thread list, New conversation, Rename, and Delete, which asks first
 * (ConfirmDialog, naming the conversation: a deleted conversation cannot be brought back); Escape or
 * Cancel keeps it and gives focus back to the toolbar's Delete. New conversation and a confirmed delete hand focus to
 * the caller (`onFresh`), which puts it in the message box, where the person types next.
 */
import { useRef, useState } from "react";
import { ConfirmDialog } from "../ConfirmDialog.tsx";
import type { ThreadSummary } from "./useAgent.ts";

export interface ThreadBarProps {
  threads: readonly ThreadSummary[];
  threadId: string | undefined;
  running: boolean;
  open(id: string | undefined): Promise<void>;
  newThread(): Promise<void>;
  rename(title: string): Promise<void>;
  remove(): Promise<void>;
  /** The person starts over (a new conversation, or the open one deleted): focus goes where they type. */
  onFresh(): void;
}

export function ThreadBar({ threads, threadId, running, open, newThread, rename, remove, onFresh }: ThreadBarProps) {
  const [renaming, setRenaming] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<ThreadSummary | undefined>();
  const deleteButton = useRef<HTMLButtonElement>(null);
  const current = threads.find((t) => t.id === threadId);
  return (
    <div className="threads toolbar">
      <label>
        Conversations{" "}
        <select
          value={threadId ?? ""}
          disabled={running}
          onChange={(event) => void open(event.target.value || undefined)}
        >
          <option value="">New conversation</option>
          {threads.map((thread) => (
            <option key={thread.id} value={thread.id}>
              {thread.title}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        onClick={() => {
          // The person wants to write: the cursor goes to the message box, as in any chat.
          onFresh();
          void newThread();
        }}
        disabled={running}
      >
        New conversation
      </button>
      {current && renaming === undefined ? (
        <>
          <button type="button" onClick={() => setRenaming(current.title)}>
            Rename
          </button>
          <button type="button" ref={deleteButton} onClick={() => setConfirming(current)} disabled={running}>
            Delete
          </button>
        </>
      ) : null}
      {renaming !== undefined ? (
        <form
          className="rename"
          onSubmit={(event) => {
            event.preventDefault();
            void rename(renaming).then(() => setRenaming(undefined));
          }}
        >
          <label>
            Title{" "}
            <input
              value={renaming}
              // biome-ignore lint/a11y/noAutofocus: the field the person just asked for
              autoFocus
              onChange={(event) => setRenaming(event.target.value)}
              onKeyDown={(event) => event.key === "Escape" && setRenaming(undefined)}
            />
          </label>
          <button type="submit">Save title</button>
        </form>
      ) : null}
      {current ? (
        <span className="hint">
          {current.usage.input_tokens + current.usage.output_tokens} tokens in this conversation
        </span>
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title="Delete this conversation?"
          text={`“${confirming.title}” and all its messages and steps will be deleted. This cannot be undone.`}
          confirmLabel="Delete"
          onConfirm={async () => {
            // The thread asked about is the one still open: the toolbar is disabled while a turn runs.
            await remove();
            return undefined;
          }}
          onClose={(done) => {
            setConfirming(undefined);
            if (done) onFresh();
            else queueMicrotask(() => deleteButton.current?.focus());
          }}
        />
      ) : null}
    </div>
  );
}
