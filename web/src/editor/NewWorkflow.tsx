/** `New workflow`: asks for the name inline (Enter creates, Escape or Cancel closes), no `prompt()`. */
import { useState } from "react";

export function NewWorkflow({ onCreate }: { onCreate(name: string): Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("Untitled workflow");
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        New workflow
      </button>
    );
  }
  const create = async () => {
    if (!name.trim()) return;
    await onCreate(name.trim());
    setOpen(false);
    setName("Untitled workflow");
  };
  return (
    <form
      className="new-workflow"
      aria-label="New workflow"
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
      onKeyDown={(event) => {
        if (event.key === "Escape") setOpen(false);
      }}
    >
      <label>
        Name of the new workflow{" "}
        <input
          // biome-ignore lint/a11y/noAutofocus: the field exists only while the person names the workflow
          autoFocus
          value={name}
          onFocus={(event) => event.currentTarget.select()}
          onChange={(event) => setName(event.target.value)}
        />
      </label>
      <button type="submit" disabled={!name.trim()}>
        Create
      </button>
      <button type="button" aria-label="Cancel the new workflow" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}
