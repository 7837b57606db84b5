/**
 * How long something took, for a person: "180 ms", "4.2 s", "2 min 5 s"; and an observation's time
 * with its approval wait stated apart ("180 ms · waited 41 s for approval"), since a wait for the
 * person is not the action's own time.
 */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** `own` time, then the approval wait when there was one. */
export function timeWithWait(own: number, approvalMs: number | undefined): string {
  return approvalMs && approvalMs > 0
    ? `${formatMs(own)} · waited ${formatMs(approvalMs)} for approval`
    : formatMs(own);
}
