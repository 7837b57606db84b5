/**
 * `More` on the toolbar: the open workflow's less frequent acts, as document apps keep them in a menu:
 * `Duplicate` (a copy, unsaved changes too, opens as `<name> (copy)`), `Export` (downloads it as
 * `<name>.json`, workflow-file.ts), `Versions` (the earlier versions kept, one to open as a draft:
 * VersionsDialog.tsx), `Close` (back to the start page of the person's workflows; a draft stays) and
 * `Delete` (asks first, naming it; focus comes back to the button when the dialog closes without
 * deleting).
 */
import { useRef, useState } from "react";
import { ConfirmDialog } from "../ConfirmDialog.tsx";
import { downloadText } from "../download.ts";
import { MenuButton } from "../Menu.tsx";
import { VersionsDialog } from "./VersionsDialog.tsx";
import type { WorkflowVersion } from "./versions.ts";

export interface WorkflowMenuProps {
  name: string;
  version: number;
  /** The earlier versions kept (a stable function: the dialog reads them once). */
  versions(): Promise<{ versions: WorkflowVersion[] } | { problem: string }>;
  /** Puts an earlier version's graph on the canvas as a draft; answers why not. */
  onOpenVersion(version: number): Promise<string | undefined>;
  /** How an earlier version differs from the canvas, or what it changed `since` another (lines); or why not. */
  onCompareVersion(version: number, since?: number): Promise<{ changes: string[] } | { problem: string }>;
  onDuplicate(): void;
  /** The workflow on screen as a file (undefined: none open). */
  file(): { fileName: string; text: string } | undefined;
  /** Closes it: the start page (the person's workflows) shows. */
  onClose(): void;
  /** Deletes the workflow; answers why it was not deleted, or undefined. */
  onDelete(): Promise<string | undefined>;
}

export function WorkflowMenu(props: WorkflowMenuProps) {
  const { name, version, versions, onOpenVersion, onCompareVersion, onDuplicate, file, onClose, onDelete } = props;
  const [deleting, setDeleting] = useState(false);
  const [browsing, setBrowsing] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <>
      <MenuButton
        label="More workflow actions"
        menuLabel="Workflow actions"
        button={button}
        items={[
          { label: "Duplicate", run: onDuplicate },
          {
            label: "Export",
            run: () => {
              const made = file();
              if (made) downloadText(made.fileName, made.text, "application/json");
            },
          },
          { label: "Versions", run: () => setBrowsing(true) },
          { label: "Close", run: onClose },
          { label: "Delete", run: () => setDeleting(true) },
        ]}
      />
      {browsing ? (
        <VersionsDialog
          name={name}
          version={version}
          load={versions}
          onOpen={onOpenVersion}
          compare={onCompareVersion}
          onClose={(opened) => {
            setBrowsing(false);
            // A version opened: focus goes to the canvas's graph (the page itself); else back to More.
            if (!opened) requestAnimationFrame(() => button.current?.focus());
          }}
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
            if (!done) requestAnimationFrame(() => button.current?.focus());
          }}
        />
      ) : null}
    </>
  );
}
