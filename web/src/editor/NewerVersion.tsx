/**
 * The banner when a newer version of the open workflow was saved elsewhere (an agent, an action, another
 * tab) while this page has unsaved changes: the draft stays until the person chooses. `Save my draft`
 * saves it as the newest version (the other stays in Versions); `Load version N` shows that version
 * and drops the draft.
 */
import { useState } from "react";

export interface NewerVersionProps {
  newer: number;
  onKeep(): Promise<void>;
  onLoad(): Promise<void>;
}

export function NewerVersion({ newer, onKeep, onLoad }: NewerVersionProps) {
  const [busy, setBusy] = useState(false);
  const act = (what: () => Promise<void>) => async () => {
    setBusy(true);
    try {
      await what();
    } finally {
      setBusy(false);
    }
  };
  return (
    <p className="banner" role="alert">
      Version {newer} of this workflow was saved elsewhere (by an agent, an action or another tab) while you have
      unsaved changes here.{" "}
      <button type="button" disabled={busy} onClick={act(onKeep)}>
        Save my draft
      </button>{" "}
      (version {newer} stays in Versions) or{" "}
      <button type="button" disabled={busy} onClick={act(onLoad)}>
        Load version {newer}
      </button>{" "}
      (your draft is dropped).
    </p>
  );
}
