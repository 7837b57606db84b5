/**
 * The conversation's toolbar: the thread list, `Find` (ConversationFinder.tsx: any conversation, by
 * words in it), New conversation, and `More` (Menu.tsx) with Rename (in
 * place: Enter or Save title keeps the new title, Escape or Cancel the old one, an empty title says
 * why), Export (the conversation as a Markdown file: transcript.ts) and Delete, which asks first
 * (ConfirmDialog, naming the conversation: a deleted conversation cannot be brought back). Focus goes
 * back to `More` when the rename ends or the dialog is cancelled. New conversation and a confirmed
 * delete hand focus to the caller (`onFresh`), which puts it in the message box, where the person
 * types next.
 */
import { useEffect, useRef, useState } from "react";
import { ConfirmDialog } from "../ConfirmDialog.tsx";
import { downloadText, safeFileName } from "../download.ts";
import { MenuButton } from "../Menu.tsx";
import { ConversationFinder, type FoundThread } from "./ConversationFinder.tsx";
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
  /** The open conversation as Markdown, headed by `title` (what `Export` downloads). */
  transcript(title: string): string;
  /** The conversations whose title or messages hold `query` (`Find`). */
  search(query: string): Promise<FoundThread[]>;
}

export function ThreadBar(props: ThreadBarProps) {
  const { threads, threadId, running, open, newThread, rename, remove, onFresh, transcript, search } = props;
  const [finding, setFinding] = useState(false);
  const find = useRef<HTMLButtonElement>(null);
  const [renaming, setRenaming] = useState<string | undefined>();
  const [renameProblem, setRenameProblem] = useState<string | undefined>();
  /** `More`: focus comes back to it when the rename field or the delete dialog closes. */
  const more = useRef<HTMLButtonElement>(null);
  // Once the field is gone, focus goes back to More (not to the page).
  const refocus = useRef(false);
  const endRename = () => {
    refocus.current = true;
    setRenaming(undefined);
    setRenameProblem(undefined);
  };
  useEffect(() => {
    if (renaming !== undefined || !refocus.current) return;
    refocus.current = false;
    more.current?.focus();
  }, [renaming]);
  const [confirming, setConfirming] = useState<ThreadSummary | undefined>();
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
        ref={find}
        aria-label="Find a conversation"
        disabled={running}
        onClick={() => setFinding(true)}
      >
        Find
      </button>
      {finding ? (
        <ConversationFinder
          search={search}
          onOpen={(id) => {
            setFinding(false);
            // Once the modal dialog is gone (nothing outside it takes focus while it is open).
            queueMicrotask(onFresh);
            void open(id);
          }}
          onClose={() => {
            setFinding(false);
            queueMicrotask(() => find.current?.focus());
          }}
        />
      ) : null}
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
        <MenuButton
          label="More conversation actions"
          menuLabel="Conversation actions"
          button={more}
          items={[
            { label: "Rename", run: () => setRenaming(current.title) },
            {
              label: "Export",
              run: () =>
                downloadText(
                  safeFileName(current.title, "conversation", "md"),
                  transcript(current.title),
                  "text/markdown",
                ),
            },
            // The conversation a turn is writing to stays until the turn ends.
            { label: "Delete", run: running ? undefined : () => setConfirming(current) },
          ]}
        />
      ) : null}
      {renaming !== undefined ? (
        <form
          className="rename"
          onSubmit={(event) => {
            event.preventDefault();
            const title = renaming.trim();
            if (title === "") {
              setRenameProblem("A conversation needs a title.");
              return;
            }
            rename(title).then(endRename, (err: unknown) =>
              setRenameProblem(
                `Not renamed: ${err instanceof Error ? err.message : "the server could not be reached"}`,
              ),
            );
          }}
        >
          <label>
            Title{" "}
            <input
              value={renaming}
              maxLength={200}
              aria-invalid={renameProblem !== undefined}
              aria-describedby={renameProblem ? "rename-problem" : undefined}
              // biome-ignore lint/a11y/noAutofocus: the field the person just asked for
              autoFocus
              onChange={(event) => {
                setRenaming(event.target.value);
                setRenameProblem(undefined);
              }}
              onKeyDown={(event) => {
                if (event.key !== "Escape") return;
                event.preventDefault();
                endRename();
              }}
            />
          </label>
          <button type="submit">Save title</button>
          <button type="button" onClick={endRename}>
            Cancel
          </button>
          {renameProblem ? (
            <span className="field-problem" id="rename-problem" role="alert">
              {renameProblem}
            </span>
          ) : null}
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
            else queueMicrotask(() => more.current?.focus());
          }}
        />
      ) : null}
    </div>
  );
}
