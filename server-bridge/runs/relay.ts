/**
 * Events about stored rows (approvals, runs, jobs) that every server sharing the store shows on its
 * pages. A publisher here `announce`s one: it goes on this process's bus, then the row's id is
 * signalled; a server hearing the id re-reads the row and `relay`s the event the row implies onto its
 * own bus. Each row's state is published at most once per process, so this process's own echo, a
 * repeated notification or a forged one for a real id shows nothing twice.
 */
import type { SessionEvent } from "../../shared/protocol/server.ts";
import type { SignalKind, Signals } from "../store/signals.ts";
import type { EventBus } from "./events.ts";

/** Rows remembered; the oldest are forgotten first (a forgotten row's late echo may show once more). */
const REMEMBERED = 10_000;

/** What about a row an event tells: its repeats carry the same state. */
function stateOf(event: SessionEvent): string {
  switch (event.type) {
    case "approval_requested":
      return "requested";
    case "job_progress":
      // A node's step is told once; the job's own progress once per status and percent.
      return event.node_id === undefined
        ? `progress:${event.status}:${event.percent}`
        : `node:${event.node_id}:${event.node_status ?? ""}`;
    default:
      return event.type;
  }
}

export class Relay {
  readonly #seen = new Map<string, Set<string>>();

  constructor(
    private readonly bus: EventBus,
    readonly signals: Signals,
  ) {}

  /**
   * A row changed here: published here, and its id signalled to the other servers. With `person`,
   * also to that user's signed-in pages (a script's approval, which has no page of its own).
   */
  announce(kind: SignalKind, id: string, sessionId: string, event: SessionEvent, person?: string): void {
    this.relay(kind, id, sessionId, event, person);
    void this.signals.notify(kind, id);
  }

  /** Published here only: steps too frequent to signal one by one (a job's nodes: its row writes are signalled). */
  local(sessionId: string, event: SessionEvent): void {
    this.bus.publish(sessionId, event);
  }

  /** Publishes what a row's state implies, unless this process already did; true when published. */
  relay(kind: SignalKind, id: string, sessionId: string, event: SessionEvent, person?: string): boolean {
    const key = `${kind}:${id}`;
    const state = stateOf(event);
    const seen = this.#seen.get(key) ?? new Set<string>();
    if (seen.has(state)) return false;
    seen.add(state);
    this.#seen.delete(key);
    this.#seen.set(key, seen);
    if (this.#seen.size > REMEMBERED) this.#seen.delete(this.#seen.keys().next().value as string);
    this.bus.publish(sessionId, event, person);
    return true;
  }
}
