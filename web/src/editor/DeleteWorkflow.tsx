/**
 * `Delete workflow`: asks first, in a modal dialog of the page's own (no `confirm()`) that names the
 * workflow. Focus starts on Cancel (a stray Enter deletes nothing), the rest of the page is inert while
 * it is open, Escape cancels, and focus goes back to the button when it closes without deleting.
 */
import { useEffect, useRef, useState } from "react";

export interface DeleteWorkflowProps {
  name: string;
  /** Deletes the workflow; answers why it was not deleted, or undefined. */
  onDelete(): Promise<string | undefined>;
}

export function DeleteWorkflow({ name, onDelete }: DeleteWorkflowProps) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const box = dialog.current;
    if (box && !box.open) box.showModal();
    cancel.current?.focus();
  }, [open]);

  const close = () => {
    dialog.current?.close();
    setOpen(false);
    setProblem(undefined);
    requestAnimationFrame(() => opener.current?.focus());
  };
  const confirm = async () => {
    setBusy(true);
    const why = await onDelete();
    setBusy(false);
    if (why === undefined) {
      dialog.current?.close();
      setOpen(false);
    } else {
      setProblem(why);
    }
  };

  return (
    <>
      <button type="button" ref={opener} onClick={() => setOpen(true)}>
        Delete workflow
      </button>
      {open ? (
        <dialog
          ref={dialog}
          className="confirm-delete"
          aria-labelledby="confirm-delete-title"
          aria-describedby="confirm-delete-text"
          onCancel={(event) => {
            // Escape: the safe answer.
            event.preventDefault();
            close();
          }}
        >
          <h2 id="confirm-delete-title">Delete “{name}”?</h2>
          <p id="confirm-delete-text">
            The workflow “{name}”, its graph and any unsaved draft of it are deleted for good. Jobs it has run stay in
            Jobs.
          </p>
          {problem ? (
            <p className="field-problem" role="alert">
              Not deleted: {problem}
            </p>
          ) : null}
          <div className="buttons">
            <button type="button" ref={cancel} onClick={close}>
              Cancel
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => void confirm()}>
              Delete
            </button>
          </div>
        </dialog>
      ) : null}
    </>
  );
}
