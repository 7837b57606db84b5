/**
 * One approval at a time (the rest queue behind it), as a modal dialog: capability, category, the
 * server's description of the call, the agent's own words labelled as such, and the arguments with
 * invisible characters made visible. Long values scroll; nothing is cut.
 */
import { useEffect, useRef } from "react";
import type { ApprovalAnswer, ApprovalRequest } from "../../../shared/gate/approvals.ts";
import { revealInvisible } from "../reveal.ts";

export function Revealed({ text }: { text: string }) {
  return (
    <>
      {revealInvisible(text).map((segment, i) =>
        segment.kind === "text" ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional
          <span key={i}>{segment.text}</span>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: segments are positional
          <span key={i} className="hidden-char" title={`invisible character ${segment.code}`}>
            [{segment.code}]
          </span>
        ),
      )}
    </>
  );
}

export interface ApprovalDialogProps {
  approval: ApprovalRequest;
  queued: number;
  onAnswer(approvalId: string, answer: ApprovalAnswer): void;
}

export function ApprovalDialog({ approval, queued, onAnswer }: ApprovalDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const denyRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    // Focus starts on the safe answer, so a stray Enter never allows anything.
    denyRef.current?.focus();
  }, []);
  const answer = (value: ApprovalAnswer) => onAnswer(approval.approval_id, value);
  const args = JSON.stringify(approval.args, null, 2) ?? "null";
  return (
    <dialog
      ref={ref}
      className="approval"
      aria-labelledby={`t-${approval.approval_id}`}
      onCancel={(event) => event.preventDefault()}
    >
      <h2 id={`t-${approval.approval_id}`}>
        Allow <code>{approval.capability}</code>?
      </h2>
      <p>
        Category: <strong className={`category category-${approval.category}`}>{approval.category}</strong>
        {queued > 0 ? <span className="queued"> ({queued} more waiting)</span> : null}
      </p>
      <p className="server-message">
        <Revealed text={approval.message} />
      </p>
      {approval.agent_message !== undefined ? (
        <figure className="agent-message">
          <figcaption>The agent's own words:</figcaption>
          <blockquote>
            <Revealed text={approval.agent_message} />
          </blockquote>
        </figure>
      ) : null}
      <h3>Arguments</h3>
      <pre className="args">
        <Revealed text={args} />
      </pre>
      <div className="buttons">
        <button type="button" onClick={() => answer("allow")}>
          Allow once
        </button>
        <button type="button" onClick={() => answer("allow_for_session")}>
          Allow for session
        </button>
        <button type="button" className="deny" onClick={() => answer("deny")} ref={denyRef}>
          Deny
        </button>
      </div>
    </dialog>
  );
}
