/**
 * A button that opens the browser's file chooser (several files) and hands over what was chosen: the
 * agent's `Attach`, the Assets tab's `Upload`. The file input itself is hidden, named for tests and
 * assistive tools; it is emptied after each choice, so choosing the same file again works.
 */
import { type ReactNode, useRef } from "react";

export interface FilesButtonProps {
  /** The button's accessible name (`Attach files`). */
  label: string;
  /** The hidden input's name (`Files to attach`). */
  inputLabel: string;
  title?: string | undefined;
  disabled?: boolean | undefined;
  onFiles(files: File[]): void;
  children: ReactNode;
}

export function FilesButton({ label, inputLabel, title, disabled, onFiles, children }: FilesButtonProps) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" aria-label={label} title={title} onClick={() => input.current?.click()} disabled={disabled}>
        {children}
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label={inputLabel}
        onChange={(event) => {
          const files = [...(event.target.files ?? [])];
          event.target.value = "";
          onFiles(files);
        }}
      />
    </>
  );
}
