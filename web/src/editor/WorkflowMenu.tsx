/**
 * `More` on the toolbar: the open workflow's less frequent acts, as document apps keep them in a menu:
 * `Duplicate` (a copy, unsaved changes too, opens as `<name> (copy)`), `Export` (downloads it as
 * `<name>.json`, workflow-file.ts), `Close` (back to the start page of the person's workflows; a draft
 * stays) and `Delete` (asks first, naming it). A WAI-ARIA menu button: Enter,
 * Space or ArrowDown open it on its first item, ArrowUp on its last; focus comes back to the button when
 * the menu or the dialog closes without acting.
 */
import { useRef, useState } from "react";
import { ConfirmDialog } from "../ConfirmDialog.tsx";
import { downloadText } from "../download.ts";
import { Menu } from "./Menu.tsx";

export interface WorkflowMenuProps {
  name: string;
  onDuplicate(): void;
  /** The workflow on screen as a file (undefined: none open). */
  file(): { fileName: string; text: string } | undefined;
  /** Closes it: the start page (the person's workflows) shows. */
  onClose(): void;
  /** Deletes the workflow; answers why it was not deleted, or undefined. */
  onDelete(): Promise<string | undefined>;
}

/** Opened under its button, right edges aligned (CSS); where that would leave the window (a narrow one), left edges. */
function keepInView(menu: HTMLElement): void {
  if (menu.getBoundingClientRect().left >= 4) return;
  menu.style.right = "auto";
  menu.style.left = "0";
}

export function WorkflowMenu({ name, onDuplicate, file, onClose, onDelete }: WorkflowMenuProps) {
  const [open, setOpen] = useState<"first" | "last" | undefined>();
  const [deleting, setDeleting] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const refocus = () => requestAnimationFrame(() => button.current?.focus());
  return (
    <span className="menu-button">
      <button
        ref={button}
        type="button"
        aria-label="More workflow actions"
        aria-haspopup="menu"
        aria-expanded={open !== undefined}
        onClick={() => setOpen((now) => (now ? undefined : "first"))}
        onKeyDown={(event) => {
          if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
          event.preventDefault();
          setOpen(event.key === "ArrowUp" ? "last" : "first");
        }}
      >
        More ▾
      </button>
      {open ? (
        <Menu
          label="Workflow actions"
          className="workflow-menu"
          last={open === "last"}
          opener={button}
          place={keepInView}
          onClose={(back) => {
            setOpen(undefined);
            if (back) button.current?.focus();
          }}
          items={[
            { label: "Duplicate", run: onDuplicate },
            {
              label: "Export",
              run: () => {
                const made = file();
                if (made) downloadText(made.fileName, made.text, "application/json");
              },
            },
            { label: "Close", run: onClose },
            { label: "Delete", run: () => setDeleting(true) },
          ]}
        />
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete “${name}”?`}
          text={`The workflow “${name}”, its graph and any unsaved draft of it are deleted for good. Jobs it has run stay in Jobs.`}
          confirmLabel="Delete"
          onConfirm={onDelete}
          onClose={(done) => {
            setDeleting(false);
            if (!done) refocus();
          }}
        />
      ) : null}
    </span>
  );
}
