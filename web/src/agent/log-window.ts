/**
 * A long conversation shows its newest messages only, as chat panels do: every message on the page costs
 * each frame (layout, hit tests, the visibility checks of `content-visibility`), so a thread of hundreds
 * of steps would slow every new step. `Show earlier messages` brings back the older ones, a page at a time.
 *
 * The window is a count of the oldest shown messages left out (tool results are not messages of their
 * own: they show inside their step). It is fixed when the person sends, so messages that come during a
 * request only add to the bottom and nothing moves under a person who scrolled up to read.
 */
import type { Entry } from "./useAgent.ts";

/** Messages shown when a conversation opens or the person sends, and added by each `Show earlier`. */
export const LOG_PAGE = 50;

/** The messages a person sees (tool results show inside their steps). */
export function shownCount(entries: readonly Entry[]): number {
  let count = 0;
  for (const { message } of entries) if (message.role !== "tool") count++;
  return count;
}

/** How many of the oldest messages a fresh window leaves out. */
export function defaultHidden(entries: readonly Entry[]): number {
  return Math.max(0, shownCount(entries) - LOG_PAGE);
}

/** The index in `entries` of the first message shown when the oldest `hidden` are left out. */
export function firstShown(entries: readonly Entry[], hidden: number): number {
  if (hidden <= 0) return 0;
  let seen = 0;
  for (let i = 0; i < entries.length; i++) {
    if (entries[i]?.message.role === "tool") continue;
    if (seen === hidden) return i;
    seen++;
  }
  return entries.length;
}
