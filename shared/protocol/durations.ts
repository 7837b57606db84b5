/**
 * How long something took, for a person: "180 ms", "4.2 s", "2 min 5 s"; and an observation's time
 * with its approval wait stated apart ("180 ms · waited 41 s for approval"), since a wait for the
 * person is not the action's own time. And a count for a person: "1 node", "3 connections"; and a
 * size: "12 KiB", "3.4 MiB".
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

/**
 * When something happened, for a person, relative to `now`: "just now", "5 min ago", "3 h ago",
 * "yesterday", "4 days ago", then the date ("on 3 Dec 2026"). A time ahead of `now` (another
 * machine's clock) is "just now".
 */
export function timeAgo(at: string | number | Date, now: number = Date.now()): string {
  const when = new Date(at);
  const ms = now - when.getTime();
  if (Number.isNaN(ms)) return "";
  if (ms < 60_000) return "just now";
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ago`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ago`;
  const days = Math.floor(ms / 86_400_000);
  if (days === 1) return "yesterday";
  if (days < 7) return `${days} days ago`;
  return `on ${when.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" })}`;
}

/** A count with its noun: "1 node", "2 nodes" (`many` for an irregular plural). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A size in bytes, for a person: bytes under a KiB, whole KiB up to a MiB, then MiB to one decimal. */
export function formatBytes(n: number): string {
  if (n < 1024) return plural(n, "byte");
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}
