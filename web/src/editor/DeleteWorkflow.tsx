/**
 * `Delete workflow`: asks first (ConfirmDialog, naming the workflow); focus goes back to the button
 * when the person keeps it.
 */
import { useRef, useState } from "react";
import { ConfirmDialog } from "../ConfirmDialog.tsx";

export interface DeleteWorkflowProps {
  name: string;
  /** Deletes the workflow; answers why it was not deleted, or undefined. */
  onDelete(): Promise<string | undefined>;
}

export function DeleteWorkflow({ name, onDelete }: DeleteWorkflowProps) {
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button type="button" ref={opener} onClick={() => setOpen(true)}>
        Delete workflow
      </button>
      {open ? (
        <ConfirmDialog
          title={`Delete “${name}”?`}
          text={`The workflow “${name}”, its graph and any unsaved draft of it are deleted for good. Jobs it has run stay in Jobs.`}
          confirmLabel="Delete"
          onConfirm={onDelete}
          onClose={(done) => {
            setOpen(false);
            if (!done) requestAnimationFrame(() => opener.current?.focus());
          }}
        />
      ) : null}
    </>
  );
}
