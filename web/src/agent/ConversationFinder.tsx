/**
 * `Find a conversation`: the person's conversations whose title or messages hold what they type (the
 * server searches every one, not only those the list holds), newest first, each with when it was last
 * written and the words around where it matched, the typed words marked. Enter in the field opens the
 * first; each found one is a button (Down from the field goes to them, Up and Down move among them). A modal dialog: Escape or Close closes it, and focus goes back to
 * the button that opened it.
 */
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { timeAgo } from "../../../shared/protocol/durations.ts";
import { messageOf } from "../transport.ts";
import type { ThreadSummary } from "./useAgent.ts";

export interface FoundThread {
  thread: ThreadSummary & { updated_at: string };
  /** The words around where its messages hold the query (none: its title does). */
  found?: string | undefined;
}

export interface ConversationFinderProps {
  search(query: string): Promise<FoundThread[]>;
  /** Opens a found conversation; the dialog closes. */
  onOpen(id: string): void;
  onClose(): void;
}

/** A pause in typing before the server is asked. */
const TYPING_MS = 200;

type Answer = { query: string; found: FoundThread[] } | { query: string; problem: string };

/** `text` with each place that holds `query` (case aside) marked. */
function marked(text: string, query: string): ReactNode[] {
  const lower = text.toLowerCase();
  const wanted = query.toLowerCase();
  const parts: ReactNode[] = [];
  let from = 0;
  for (let at = lower.indexOf(wanted); at >= 0 && wanted; at = lower.indexOf(wanted, from)) {
    parts.push(text.slice(from, at), <mark key={at}>{text.slice(at, at + wanted.length)}</mark>);
    from = at + wanted.length;
  }
  parts.push(text.slice(from));
  return parts;
}

export function ConversationFinder({ search, onOpen, onClose }: ConversationFinderProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [query, setQuery] = useState("");
  const [answer, setAnswer] = useState<Answer | undefined>();
  const list = useRef<HTMLUListElement>(null);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  // Asked once typing pauses; an answer to words since changed is dropped.
  const wanted = query.trim();
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    const timer = setTimeout(() => {
      search(wanted).then(
        (found) => live && setAnswer({ query: wanted, found }),
        (err: unknown) => live && setAnswer({ query: wanted, problem: messageOf(err) }),
      );
    }, TYPING_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [wanted, search]);
  const current = answer?.query === wanted ? answer : undefined;
  const found = current && "found" in current ? current.found : [];
  const now = Date.now();
  return (
    <dialog
      ref={ref}
      className="finder"
      aria-labelledby={`${id}-title`}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={`${id}-title`}>Find a conversation</h2>
      <input
        ref={field}
        type="search"
        aria-label="Search conversations"
        placeholder="Words from its title or messages"
        aria-describedby={`${id}-status`}
        maxLength={200}
        value={query}
        autoFocus
        onChange={(event) => setQuery(event.target.value)}
        onKeyDown={(event) => {
          // Escape closes the dialog (a search field's own Escape would only empty it).
          if (event.key === "Escape") {
            event.preventDefault();
            onClose();
          }
          // Down goes to the conversations found (Up and Down move among them, Up from the first back here).
          if (event.key === "ArrowDown" && found[0]) {
            event.preventDefault();
            list.current?.querySelector<HTMLElement>("button")?.focus();
          }
          if (event.key !== "Enter" || !found[0]) return;
          event.preventDefault();
          onOpen(found[0].thread.id);
        }}
      />
      <p id={`${id}-status`} className="status" role="status">
        {!wanted
          ? "Type words from a conversation's title or its messages (the code of its steps and their results too)."
          : !current
            ? "Searching…"
            : "problem" in current
              ? `Not searched: ${current.problem}`
              : found.length === 0
                ? `No conversation holds “${wanted}”.`
                : `${found.length === 1 ? "One conversation holds" : `${found.length} conversations hold`} “${wanted}”.`}
      </p>
      {found.length > 0 ? (
        <ul
          ref={list}
          className="found-list"
          aria-label="Conversations found"
          onKeyDown={(event) => {
            if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
            const buttons = [...(list.current?.querySelectorAll<HTMLElement>("button") ?? [])];
            const at = buttons.indexOf(document.activeElement as HTMLElement);
            const next = event.key === "ArrowDown" ? buttons[at + 1] : at > 0 ? buttons[at - 1] : field.current;
            event.preventDefault();
            next?.focus();
          }}
        >
          {found.map(({ thread, found: words }) => (
            <li key={thread.id}>
              <button type="button" onClick={() => onOpen(thread.id)}>
                <strong>{marked(thread.title, wanted)}</strong>{" "}
                <small>
                  <time dateTime={thread.updated_at}>{timeAgo(thread.updated_at, now)}</time>
                </small>
                {words ? <span className="found-words">{marked(words, wanted)}</span> : null}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="buttons">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
