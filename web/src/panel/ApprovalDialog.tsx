/**
 * One approval at a time (the rest queue behind it), as a modal dialog: capability, category, the
 * arguments first (invisible characters made visible, images shown as thumbnails), then the server's
 * description of the call, the agent's own words labelled as such, and what "allow for session"
 * covers when the capability is scoped. An approval a script asks (through the API, with no page of
 * its own) says so. Long values scroll; nothing is cut.
 * Focus starts on Deny (a stray Enter never allows anything), Tab stays inside the dialog, Escape
 * answers Deny, and focus returns to where it was when the dialog closes. In a widget (`armAfterMs`)
 * the buttons wake only once the dialog has been fully visible that long (armed.ts).
 */
import { useEffect, useRef } from "react";
import type { ApprovalAnswer, ApprovalRequest } from "../../../shared/gate/approvals.ts";
import { PageImage } from "../PageImage.tsx";
import { Revealed } from "../reveal-view.tsx";
import { describeArgs } from "./approval-args.ts";
import { useArmed } from "./armed.ts";

export interface ApprovalDialogProps {
  approval: ApprovalRequest;
  queued: number;
  onAnswer(approvalId: string, answer: ApprovalAnswer): void;
  /** Buttons stay disabled until the dialog has been fully visible this long (a widget's framed page). */
  armAfterMs?: number | undefined;
}

/** Where focus was before the first of a run of queued dialogs opened; it goes back there after the last. */
let returnFocus: HTMLElement | null = null;

const FOCUSABLE = "button:not([disabled]), a[href], input, select, textarea, [tabindex]:not([tabindex='-1'])";

export function ApprovalDialog({ approval, queued, onAnswer, armAfterMs }: ApprovalDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const denyRef = useRef<HTMLButtonElement>(null);
  const armed = useArmed(ref, armAfterMs);
  useEffect(() => {
    if (armed) denyRef.current?.focus();
  }, [armed]);
  useEffect(() => {
    const dialog = ref.current;
    if (!returnFocus && document.activeElement instanceof HTMLElement && !document.activeElement.closest("dialog")) {
      returnFocus = document.activeElement;
    }
    if (dialog && !dialog.open) dialog.showModal();
    denyRef.current?.focus();
    return () => {
      // The next queued approval mounts a new dialog at once; focus goes back only when none follows.
      queueMicrotask(() => {
        if (document.querySelector("dialog.approval[open]")) return;
        if (returnFocus?.isConnected) returnFocus.focus();
        returnFocus = null;
      });
    };
  }, []);
  const answer = (value: ApprovalAnswer) => onAnswer(approval.approval_id, value);
  const { text, images } = describeArgs(approval.args);
  return (
    <dialog
      ref={ref}
      className="approval"
      aria-labelledby={`t-${approval.approval_id}`}
      onCancel={(event) => {
        // Escape: the safe answer.
        event.preventDefault();
        answer("deny");
      }}
      onKeyDown={(event) => {
        if (event.key !== "Tab" || !ref.current) return;
        const items = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
        const first = items[0];
        const last = items.at(-1);
        if (!first || !last) return;
        if (event.shiftKey && document.activeElement === first) {
          event.preventDefault();
          last.focus();
        } else if (!event.shiftKey && document.activeElement === last) {
          event.preventDefault();
          first.focus();
        }
      }}
    >
      <h2 id={`t-${approval.approval_id}`}>
        Allow <code>{approval.capability}</code>?
      </h2>
      <p>
        Category: <strong className={`category category-${approval.category}`}>{approval.category}</strong>
        {queued > 0 ? <span className="queued"> ({queued} more waiting)</span> : null}
      </p>
      {approval.from === "script" ? (
        <p className="asker">
          A script asks, not this page: a call made through the API with one of your tokens (its run{" "}
          <code>{approval.run_id}</code>).
        </p>
      ) : null}
      <h3>Arguments</h3>
      <pre className="args">
        <Revealed text={text} />
      </pre>
      {images.length > 0 ? (
        <ul className="arg-images">
          {images.map((image) => (
            <li key={image.label}>
              <figure>
                <PageImage src={image.src} alt={image.label} className="arg-thumbnail" />
                <figcaption>{image.label}</figcaption>
              </figure>
            </li>
          ))}
        </ul>
      ) : null}
      <p className="server-message">
        <Revealed text={approval.message} />
      </p>
      {approval.agent_message !== undefined ? (
        <figure className="agent-message">
          <figcaption>The agent's own words (its reason, not checked by anyone):</figcaption>
          <blockquote>
            <Revealed text={approval.agent_message} />
          </blockquote>
        </figure>
      ) : null}
      {approval.scope !== undefined ? (
        <p className="scope">
          Allow for session covers <code>{approval.scope}</code> only; anywhere else asks again.
        </p>
      ) : null}
      {armed ? null : (
        <p className="hint" role="status">
          The buttons wake once this dialog has been fully visible for a moment.
        </p>
      )}
      <div className="buttons">
        <button type="button" onClick={() => answer("allow")} disabled={!armed}>
          Allow once
        </button>
        <button type="button" onClick={() => answer("allow_for_session")} disabled={!armed}>
          Allow for session
        </button>
        <button type="button" className="deny" onClick={() => answer("deny")} ref={denyRef} disabled={!armed}>
          Deny
        </button>
      </div>
    </dialog>
  );
}
