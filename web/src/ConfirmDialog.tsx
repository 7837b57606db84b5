/**
 * The page's one confirmation before something that cannot be undone (deleting a conversation, a
 * workflow): a modal `alertdialog` of the page's own (never `confirm()`), naming what is at stake.
 * Focus starts on Cancel, as the approval dialog's starts on Deny: a stray Enter destroys nothing.
 * Escape or Cancel closes it; the act's refusal, if any, stays in it beside the buttons.
 */
import { useEffect, useId, useRef, useState } from "react";

export interface ConfirmDialogProps {
  title: string;
  text: string;
  /** The destructive button's label (`Delete`). */
  confirmLabel: string;
  /** Does the act; answers why it did not happen (shown in the dialog), or undefined. */
  onConfirm(): Promise<string | undefined>;
  /** The dialog is done: `true` after the act happened, `false` when the person kept things as they were. */
  onClose(done: boolean): void;
}

export function ConfirmDialog({ title, text, confirmLabel, onConfirm, onClose }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    cancel.current?.focus();
  }, []);
  const confirm = async () => {
    setBusy(true);
    const why = await onConfirm();
    setBusy(false);
    if (why === undefined) onClose(true);
    else setProblem(why);
  };
  return (
    <dialog
      ref={ref}
      className="confirm"
      role="alertdialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      onCancel={(event) => {
        // Escape: the safe answer.
        event.preventDefault();
        onClose(false);
      }}
    >
      <h2 id={`${id}-title`}>{title}</h2>
      <p id={`${id}-text`}>{text}</p>
      {problem ? (
        <p className="field-problem" role="alert">
          Not done: {problem}
        </p>
      ) : null}
      <div className="buttons">
        <button type="button" ref={cancel} onClick={() => onClose(false)}>
          Cancel
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => void confirm()}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
