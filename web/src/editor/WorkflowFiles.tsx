/**
 * `Import` (a workflow file, or a bare graph, becomes a new workflow and opens; EditorPane takes a
 * dropped one the same way) and `Export` (the open
 * workflow, with the graph on screen, downloads as `<name>.json`): see workflow-file.ts.
 */
import { useRef } from "react";
import { downloadText } from "../download.ts";

export function ImportWorkflow({ onImport }: { onImport(file: File): Promise<void> }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" onClick={() => input.current?.click()} title="Open a workflow file as a new workflow">
        Import
      </button>
      <input
        ref={input}
        type="file"
        accept=".json,application/json"
        aria-label="Workflow file to import"
        hidden
        onChange={(event) => {
          const file = event.target.files?.[0];
          // The same file can be chosen again (after fixing it, or to import a second copy).
          event.target.value = "";
          if (file) void onImport(file);
        }}
      />
    </>
  );
}

export function ExportWorkflow({ file }: { file(): { fileName: string; text: string } | undefined }) {
  return (
    <button
      type="button"
      title="Download the workflow on screen (unsaved changes too) as a JSON file"
      onClick={() => {
        const made = file();
        if (made) downloadText(made.fileName, made.text, "application/json");
      }}
    >
      Export
    </button>
  );
}
