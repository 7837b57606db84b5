/**
 * A file going up: its name and how much of it has gone (shown, not announced: the bar's label names
 * it for a screen reader, and the outcome is said once when the batch ends), with `Stop uploading`.
 */
export interface Sending {
  name: string;
  fraction: number;
}

export function UploadProgress({ sending, onStop }: { sending: Sending; onStop: () => void }) {
  return (
    <div className="upload-progress">
      <progress aria-label={`Uploading ${sending.name}`} max={1} value={sending.fraction} />
      <span className="upload-name" aria-hidden="true">
        {sending.name} · {Math.round(sending.fraction * 100)}%
      </span>
      <button type="button" onClick={onStop}>
        Stop uploading
      </button>
    </div>
  );
}
