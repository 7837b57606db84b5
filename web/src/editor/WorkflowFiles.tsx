/**
 * `Import`: a workflow file (what `More` > `Export` wrote, or a bare graph) becomes a new workflow and
 * opens; EditorPane takes a dropped one the same way. See workflow-file.ts.
 */
import { useRef } from "react";

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
