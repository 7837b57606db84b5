/**
 * The agent's conversation (DESIGN.md section 11), by accessible names: a region `Conversation`, a
 * textbox `Message` (Enter sends, Shift+Enter is a newline), buttons `Send` and `Stop`, a combobox
 * `Model`, and the thread list with new, rename and delete. The model's text streams in; each
 * execute_code step is a card with its code (collapsed), its calls and its observation; view_image
 * steps show their image. A request that got no final answer (a provider failure, a cut stream, Stop)
 * has `Retry`, which sends it again. With no provider configured it says exactly what to set.
 */
import { type FormEvent, type KeyboardEvent, memo, useCallback, useEffect, useRef, useState } from "react";
import { withAttachments } from "../../../shared/agent/attachments.ts";
import { transcriptMarkdown } from "../../../shared/agent/transcript.ts";
import type { Mode } from "../../../shared/capabilities/types.ts";
import type { UserCalls } from "../editor/user-calls.ts";
import { takeDroppedFiles } from "../file-drops.ts";
import type { Persistence } from "../persist.ts";
import type { SandboxClient } from "../sandbox-client.ts";
import type { Api } from "../transport.ts";
import { AttachButton, AttachmentList, savedAssets, useAttachments } from "./Attachments.tsx";
import { defaultHidden, firstShown, LOG_PAGE } from "./log-window.ts";
import { loadMarkdown, Markdown } from "./Markdown.tsx";
import { Messages } from "./Messages.tsx";
import { OpenInAction } from "./StepCard.tsx";
import { ThreadBar } from "./ThreadBar.tsx";
import { lastRequest, unanswered, useAgent } from "./useAgent.ts";

export interface ConversationProps {
  api: Api;
  sandbox: SandboxClient;
  mode: Mode;
  /** Keeps the message being written across reloads. */
  persistence: Persistence;
  /** Takes a step's code to the `Action` editor (a stable function: the conversation is memoised). */
  openInAction?: ((code: string) => void) | undefined;
  /** The person's own calls, which save attached files as their assets (no `Attach files` without). */
  calls?: UserCalls | undefined;
  /** A question begun elsewhere (agent-asks.ts), the newest by its number: it goes into Message. */
  ask?: { text: string; n: number } | undefined;
  /** What the page shows, sent with each message (the editor's open workflow and selection; stable). */
  context?: (() => string | undefined) | undefined;
}

function ConversationView({ api, sandbox, mode, persistence, openInAction, calls, ask, context }: ConversationProps) {
  const agent = useAgent(api, sandbox, mode, persistence);
  const attachments = useAttachments(calls);
  const [draft, setDraft] = useState("");
  const draftRef = useRef("");
  const changeDraft = (text: string) => {
    draftRef.current = text;
    setDraft(text);
    void persistence.saveMessage(text);
  };
  // What the person was writing before a reload comes back (unless they have started again).
  useEffect(() => {
    void persistence.loadMessage().then((kept) => {
      if (!kept || draftRef.current !== "") return;
      draftRef.current = kept;
      setDraft(kept);
    });
  }, [persistence]);
  const scroller = useRef<HTMLElement>(null);
  const prompt = useRef<HTMLTextAreaElement>(null);
  /** Puts `text` in Message for the person to finish or change: the box has focus, the cursor after it. */
  const fillMessage = (text: string) => {
    changeDraft(text);
    requestAnimationFrame(() => {
      const box = prompt.current;
      box?.focus();
      box?.setSelectionRange(box.value.length, box.value.length);
    });
  };
  const fillMessageNow = useRef(fillMessage);
  fillMessageNow.current = fillMessage;
  // A question begun elsewhere follows what the person was writing.
  const asked = useRef(ask?.n);
  useEffect(() => {
    if (!ask || ask.n === asked.current) return;
    asked.current = ask.n;
    const now = draftRef.current.replace(/\s+$/, "");
    fillMessageNow.current(now === "" ? ask.text : `${now}\n\n${ask.text}`);
  }, [ask]);
  // Scrolled up to read: `Jump to newest` takes the person back down (as chat apps have it).
  const [reading, setReading] = useState(false);
  const toNewest = useCallback(() => {
    const section = scroller.current;
    if (section) {
      section.scrollTop = 0;
      delete section.dataset.reading;
    }
    setReading(false);
  }, []);
  // Another conversation opens at its newest message, wherever the person had scrolled in this one.
  const shownThread = useRef(agent.threadId);
  useEffect(() => {
    if (shownThread.current === agent.threadId) return;
    shownThread.current = agent.threadId;
    toNewest();
  }, [agent.threadId, toNewest]);
  // The oldest messages left out of a long conversation (log-window.ts): fixed per thread once the
  // person sends or asks for earlier ones, else the newest page of the thread on screen.
  const [logWindow, setLogWindow] = useState<{ threadId: string | undefined; hidden: number }>();
  // The Markdown renderer loads with the conversation, before the model's first words arrive.
  useEffect(() => {
    void loadMarkdown();
  }, []);

  if (agent.state.status === "loading") return <p className="status">Loading the agent…</p>;
  if (agent.state.status === "unconfigured") {
    return (
      <section className="conversation-panel" aria-label="Agent">
        <p className="notice" role="status">
          {agent.state.message}
        </p>
        <p className="status">The Action tab still runs actions you write yourself.</p>
      </section>
    );
  }

  /** Sends `text`; `lost` runs when it never reached the conversation (default: it goes back in the box). */
  const sendText = (text: string, lost = () => changeDraft(text)) => {
    setLogWindow({ threadId: agent.threadId, hidden: defaultHidden(agent.messages) });
    // A person who sends is back at the newest message, from where the section keeps it in view.
    toNewest();
    // A request that never reached the conversation (the server refused or could not be reached) goes
    // back in the box, unless the person has begun another.
    void agent.send(text, context?.()).then((reached) => {
      if (!reached && draftRef.current === "") lost();
    });
  };
  const attached = savedAssets(attachments.items);
  const canSend = !agent.running && !attachments.saving && (draft.trim() !== "" || attached.length > 0);
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const text = draft.trim();
    if (!canSend) return;
    const kept = attachments.items;
    changeDraft("");
    attachments.set([]);
    sendText(withAttachments(text, attached), () => {
      changeDraft(text);
      attachments.set(kept);
    });
  };
  // A request that got no final answer can be sent again as it was; the person goes on typing meanwhile.
  const retryText = agent.running ? undefined : unanswered(agent.messages);
  const retry = () => {
    if (retryText === undefined) return;
    sendText(retryText);
    prompt.current?.focus();
  };
  // Files dropped on the conversation or the message box are attached to the next message, as Attach does.
  const dropToAttach = attachments.available ? takeDroppedFiles(attachments.add) : {};
  const hidden = logWindow && logWindow.threadId === agent.threadId ? logWindow.hidden : defaultHidden(agent.messages);
  const first = firstShown(agent.messages, hidden);
  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) submit(event);
    // As in a terminal or a chat app: Up in an empty box brings back the last request, to change and send.
    const plain = !(event.shiftKey || event.altKey || event.ctrlKey || event.metaKey);
    if (event.key === "ArrowUp" && plain && draft === "") {
      const last = lastRequest(agent.messages);
      if (last === undefined) return;
      event.preventDefault();
      fillMessage(last);
    }
  };

  return (
    <div className="conversation-panel">
      <ThreadBar
        threads={agent.threads}
        threadId={agent.threadId}
        running={agent.running}
        open={agent.open}
        newThread={agent.newThread}
        rename={agent.rename}
        remove={agent.remove}
        onFresh={() => prompt.current?.focus()}
        search={agent.search}
        transcript={(title) =>
          transcriptMarkdown(
            title,
            agent.messages.map((entry) => entry.message),
          )
        }
      />
      {/* The section lays its one child out bottom-up (column-reverse): it stays scrolled to the newest
          message as the conversation grows, with no script scrolling it, and stays put when the person
          has scrolled up to read. */}
      <section
        className="conversation"
        aria-label="Conversation"
        aria-live="polite"
        aria-busy={agent.running}
        ref={scroller}
        onScroll={(event) => setReading(markReading(event.currentTarget))}
        {...dropToAttach}
      >
        <div className="conversation-log">
          {agent.messages.length === 0 && !agent.running ? (
            <div className="starters">
              <p className="status">
                Ask the agent to do something with your workflows, assets or data, or begin with:
              </p>
              <ul aria-label="Suggestions">
                {STARTERS.map((text) => (
                  <li key={text}>
                    <button type="button" onClick={() => fillMessage(text)}>
                      {text}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {hidden > 0 ? (
            <button
              type="button"
              className="earlier"
              onClick={() => setLogWindow({ threadId: agent.threadId, hidden: Math.max(0, hidden - LOG_PAGE) })}
            >
              Show earlier messages ({hidden} more)
            </button>
          ) : null}
          <OpenInAction.Provider value={openInAction}>
            <Messages entries={agent.messages} from={first} active={agent.active} />
          </OpenInAction.Provider>
          {agent.streaming ? (
            <div className="assistant streaming">
              <Markdown text={agent.streaming} />
            </div>
          ) : null}
          {agent.running && !agent.streaming && !agent.active ? <p className="status">Thinking…</p> : null}
          {agent.admission ? (
            <fieldset className="admission" aria-label="High-risk action">
              <p>
                The agent marked this action high-risk (it changes, deletes or sends things):{" "}
                <strong>{agent.admission.input.title ?? agent.admission.input.description}</strong>. Run it?
              </p>
              <button type="button" onClick={() => agent.admission?.answer(true)}>
                Run it
              </button>
              <button type="button" onClick={() => agent.admission?.answer(false)}>
                Do not run
              </button>
            </fieldset>
          ) : null}
          {agent.error ? (
            <p className="error" role="alert">
              {agent.error}
            </p>
          ) : null}
          {retryText !== undefined ? (
            <button type="button" className="retry" title={`Send "${clip(retryText)}" again`} onClick={retry}>
              Retry
            </button>
          ) : null}
        </div>
      </section>
      {reading ? (
        <button
          type="button"
          className="jump-newest"
          onClick={() => {
            toNewest();
            prompt.current?.focus();
          }}
        >
          Jump to newest <span aria-hidden="true">↓</span>
        </button>
      ) : null}
      <form className="composer" onSubmit={submit} {...dropToAttach}>
        <label className="message">
          Message
          <textarea
            ref={prompt}
            value={draft}
            rows={3}
            onChange={(event) => changeDraft(event.target.value)}
            onKeyDown={onKey}
            // A pasted file (a screenshot) is attached; pasted text stays text.
            onPaste={(event) => {
              if (!attachments.available || event.clipboardData.files.length === 0) return;
              event.preventDefault();
              attachments.add([...event.clipboardData.files]);
            }}
          />
        </label>
        <AttachmentList attachments={attachments} />
        <div className="toolbar">
          <button type="submit" disabled={!canSend}>
            Send
          </button>
          <AttachButton attachments={attachments} disabled={agent.running} />
          {agent.running ? (
            <button type="button" onClick={agent.stop}>
              Stop
            </button>
          ) : null}
          <label>
            Model{" "}
            <select
              aria-label="Model"
              value={agent.model ?? ""}
              onChange={(event) => agent.setModel(event.target.value)}
            >
              {agent.models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                  {m.default ? " (default)" : ""}
                </option>
              ))}
            </select>
          </label>
          <span className="hint">Enter sends, Shift+Enter starts a new line, ↑ brings back your last request</span>
        </div>
      </form>
    </div>
  );
}

/** What an empty conversation offers to begin with: each goes into Message, to send or change first. */
const STARTERS = [
  "What workflows do I have?",
  "Build a workflow that adds 2 and 40, then run it",
  "What can you do here?",
];

/** A request as a tooltip names it: its first 80 characters. */
const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 79)}…` : text);

/**
 * The conversation is a reversed column: its scroll offset is 0 at the newest message, negative above.
 * At 0 the browser keeps it there as messages come (scroll anchoring off); scrolled up to read, anchoring
 * keeps what the person reads where it is while messages come below (`data-reading`, styles.css).
 * Answers whether the person is reading above the newest message.
 */
function markReading(section: HTMLElement): boolean {
  const reading = Math.abs(section.scrollTop) >= 2;
  if (reading) section.dataset.reading = "";
  else delete section.dataset.reading;
  return reading;
}

/** Unchanged props (the panel re-renders on every run of the Action tab) skip its render. */
export const Conversation = memo(ConversationView);
