/**
 * The one pool of Node sandbox workers in a process: MCP (stdio and HTTP), the CLI's server-side
 * actions and code nodes all run here (app.ts owns it; created once, disposed on close). Each worker
 * is one NodeSandboxHost running one action at a time.
 *
 * Fair between users: each user's actions wait in their own queue, and a free worker goes to the next
 * user in turn (round robin over users with queued actions: the one served longest ago goes first), so
 * a user waits behind their own actions, never behind another's. A user has at most `userMax` actions in flight, fewer than the workers, so
 * one user's runaway actions always leave a worker for everyone else.
 *
 * Workers start on first need (or on `warm`); while one is being taken, the next is started in the
 * background when there is room, so a second user rarely waits for a cold start. A free worker whose
 * next runtime is already prepared is preferred, so actions sent back to back do not wait for one.
 * `run` never rejects: a run cancelled while waiting, or caught by `dispose`, answers with its code.
 */
import { availableParallelism } from "node:os";
import type { ErrorCode } from "../../shared/protocol/errors.ts";
import type { SandboxStats } from "../../shared/protocol/worker.ts";
import { failedObservation } from "../../shared/sandbox/executor.ts";
import {
  type ActionRun,
  type NodeExecutor,
  type NodeRunOptions,
  NodeSandboxHost,
  type NodeSandboxOptions,
} from "./host.ts";

export interface PoolRunOptions extends NodeRunOptions {
  /** Whose action it is: the queue it waits in and the cap it counts against. */
  user: string;
}

export interface SandboxPoolOptions {
  /** Workers (default: the number of cores, at least 2). */
  workers?: number;
  /** Actions one user may have in flight (default: workers - 1, at least 1). */
  userMax?: number;
  sandbox?: NodeSandboxOptions;
}

interface Waiting {
  action: string;
  options: PoolRunOptions;
  queuedAt: number;
  resolve(run: ActionRun): void;
  onAbort?: () => void;
}

interface Worker {
  host: NodeSandboxHost | undefined;
  starting: Promise<NodeSandboxHost | undefined> | undefined;
  busy: boolean;
  /** When its last action ended: the free worker that has been free longest is the likeliest prepared. */
  freedAt: number;
}

/** The default pool size: the number of cores, at least 2 (one runaway must leave a worker free). */
export function defaultWorkers(): number {
  return Math.max(2, availableParallelism());
}

export class SandboxPool implements NodeExecutor<PoolRunOptions> {
  readonly workers: number;
  readonly userMax: number;
  readonly #sandbox: NodeSandboxOptions;
  readonly #slots: Worker[];
  /** Users with queued actions (in the order they came), each user's queue in arrival order. */
  readonly #queues = new Map<string, Waiting[]>();
  readonly #running = new Map<string, number>();
  /** When each user with work here was last given a worker (a counter, not a clock). */
  readonly #lastTurn = new Map<string, number>();
  #turns = 0;
  #disposed = false;

  constructor(options: SandboxPoolOptions = {}) {
    this.workers = Math.max(1, options.workers ?? defaultWorkers());
    this.userMax = Math.min(Math.max(1, options.userMax ?? this.workers - 1), Math.max(1, this.workers - 1));
    this.#sandbox = options.sandbox ?? {};
    this.#slots = Array.from({ length: this.workers }, () => ({
      host: undefined,
      starting: undefined,
      busy: false,
      freedAt: 0,
    }));
  }

  /** Whether any worker has been started (none is until an action or `warm` needs one). */
  get started(): boolean {
    return this.#slots.some((slot) => slot.host || slot.starting);
  }

  /** Workers replaced after an overrun or a crash, over the pool's life. */
  get restarts(): number {
    return this.#slots.reduce((sum, slot) => sum + (slot.host?.restarts ?? 0), 0);
  }

  /** One user's actions now running and waiting. */
  usage(user: string): { running: number; waiting: number } {
    return { running: this.#running.get(user) ?? 0, waiting: this.#queues.get(user)?.length ?? 0 };
  }

  /** Starts `count` workers (default all) in the background; resolves once they are up. */
  async warm(count = this.workers): Promise<void> {
    const starting = this.#slots.slice(0, count).map((slot) => this.#start(slot));
    await Promise.all(starting);
  }

  run(action: string, options: PoolRunOptions): Promise<ActionRun> {
    const queuedAt = performance.now();
    if (this.#disposed) return Promise.resolve(ended(queuedAt, "run_ended", SHUTTING_DOWN));
    if (options.signal?.aborted) return Promise.resolve(ended(queuedAt, "cancelled", CANCELLED_WAITING));
    return new Promise<ActionRun>((resolve) => {
      const waiting: Waiting = { action, options, queuedAt, resolve };
      const signal = options.signal;
      if (signal) {
        waiting.onAbort = () => {
          if (this.#dequeue(waiting)) resolve(ended(queuedAt, "cancelled", CANCELLED_WAITING));
        };
        signal.addEventListener("abort", waiting.onAbort, { once: true });
      }
      const queue = this.#queues.get(options.user);
      if (queue) queue.push(waiting);
      else this.#queues.set(options.user, [waiting]);
      this.#pump();
    });
  }

  /** Each started worker's counters after its idle work (the leak check of tests/hostile). */
  async stats(): Promise<(SandboxStats | undefined)[]> {
    return Promise.all(this.#slots.flatMap((slot) => (slot.host ? [slot.host.stats()] : [])));
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const queue of this.#queues.values()) {
      for (const waiting of queue) this.#settle(waiting, ended(waiting.queuedAt, "run_ended", SHUTTING_DOWN));
    }
    this.#queues.clear();
    const hosts = this.#slots.map((slot) => slot.starting ?? Promise.resolve(slot.host));
    await Promise.all(hosts.map((host) => host.then((h) => h?.dispose()).catch(() => undefined)));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  /** Gives free workers to waiting actions, one user's turn at a time, while both remain. */
  #pump(): void {
    while (!this.#disposed) {
      const slot = this.#freeSlot();
      if (!slot) return;
      const waiting = this.#nextTurn();
      if (!waiting) return;
      this.#dispatch(slot, waiting);
    }
  }

  /**
   * A free started worker: one whose next runtime is prepared, else the one free the longest (its
   * preparation, begun when its last action ended, is the nearest to done); else one not yet started.
   */
  #freeSlot(): Worker | undefined {
    let best: Worker | undefined;
    for (const slot of this.#slots) {
      if (slot.busy || !slot.host || slot.starting) continue;
      if (slot.host.ready) return slot;
      if (!best || slot.freedAt < best.freedAt) best = slot;
    }
    return best ?? this.#slots.find((slot) => !slot.busy && !slot.host);
  }

  /** The waiting user served longest ago (never first), under the cap: their next action, dequeued. */
  #nextTurn(): Waiting | undefined {
    let chosen: string | undefined;
    let oldest = Number.POSITIVE_INFINITY;
    for (const user of this.#queues.keys()) {
      if ((this.#running.get(user) ?? 0) >= this.userMax) continue;
      const last = this.#lastTurn.get(user) ?? -1;
      if (last < oldest) {
        oldest = last;
        chosen = user;
      }
    }
    if (chosen === undefined) return undefined;
    const queue = this.#queues.get(chosen) ?? [];
    const waiting = queue.shift();
    if (queue.length === 0) this.#queues.delete(chosen);
    this.#lastTurn.set(chosen, ++this.#turns);
    return waiting;
  }

  #dequeue(waiting: Waiting): boolean {
    const queue = this.#queues.get(waiting.options.user);
    const index = queue?.indexOf(waiting) ?? -1;
    if (!queue || index < 0) return false;
    queue.splice(index, 1);
    if (queue.length === 0) this.#queues.delete(waiting.options.user);
    return true;
  }

  #dispatch(slot: Worker, waiting: Waiting): void {
    const { user } = waiting.options;
    slot.busy = true;
    this.#running.set(user, (this.#running.get(user) ?? 0) + 1);
    this.#spare();
    void this.#runOn(slot, waiting).then((run) => {
      slot.busy = false;
      slot.freedAt = performance.now();
      const left = (this.#running.get(user) ?? 1) - 1;
      if (left > 0) this.#running.set(user, left);
      else this.#running.delete(user);
      // A user with nothing here any more needs no turn kept.
      if (left <= 0 && !this.#queues.has(user)) this.#lastTurn.delete(user);
      this.#settle(waiting, run);
      this.#pump();
    });
  }

  async #runOn(slot: Worker, waiting: Waiting): Promise<ActionRun> {
    const host = slot.host ?? (await this.#start(slot));
    if (!host) {
      const why = this.#disposed ? SHUTTING_DOWN : "The sandbox could not start on this server; try again.";
      return ended(waiting.queuedAt, "run_ended", why);
    }
    const { user: _user, ...options } = waiting.options;
    return { ...(await host.run(waiting.action, options)), worker: this.#slots.indexOf(slot) };
  }

  /** Keeps one started worker free when there is room, so the next user does not wait for a cold start. */
  #spare(): void {
    if (this.#disposed || this.#slots.some((slot) => !slot.busy && (slot.host || slot.starting))) return;
    const unstarted = this.#slots.find((slot) => !slot.busy && !slot.host && !slot.starting);
    if (unstarted) void this.#start(unstarted);
  }

  #start(slot: Worker): Promise<NodeSandboxHost | undefined> {
    if (slot.host) return Promise.resolve(slot.host);
    slot.starting ??= NodeSandboxHost.start(this.#sandbox).then(
      (host) => {
        slot.starting = undefined;
        if (this.#disposed) {
          void host.dispose();
          return undefined;
        }
        slot.host = host;
        // A worker that came up may take a waiting action.
        queueMicrotask(() => this.#pump());
        return host;
      },
      () => {
        slot.starting = undefined;
        return undefined;
      },
    );
    return slot.starting;
  }

  #settle(waiting: Waiting, run: ActionRun): void {
    if (waiting.onAbort) waiting.options.signal?.removeEventListener("abort", waiting.onAbort);
    waiting.resolve(run);
  }
}

const SHUTTING_DOWN = "The sandbox is shutting down; the action was not run.";
const CANCELLED_WAITING = "The action was cancelled while it waited for a sandbox worker; it never started.";

function ended(since: number, code: ErrorCode, message: string): ActionRun {
  const ms = performance.now() - since;
  return {
    observation: failedObservation(code, message, ms),
    timings: { setup_ms: 0, total_ms: ms, prepare_ms: 0, prepared_ahead: false },
  };
}
