/**
 * A small pool of Node sandbox hosts for MCP. A host runs one action at a time (and queues the rest), so
 * a few hosts let concurrent clients' actions run side by side. Hosts start on first use (or on `warm`)
 * and a host that failed to start is tried again on the next use. Each host replaces its own worker after
 * an overrun, so a runaway action never takes the pool down.
 */
import type { ActionRun, NodeSandboxOptions, RunActionOptions } from "../sandbox/host.ts";
import { NodeSandboxHost } from "../sandbox/host.ts";

export interface SandboxLike {
  runAction(options: RunActionOptions): Promise<ActionRun>;
  dispose(): Promise<void>;
}

interface Slot {
  host: Promise<SandboxLike>;
  busy: number;
}

export class SandboxPool implements AsyncDisposable {
  readonly #slots: (Slot | undefined)[];
  readonly #start: () => Promise<SandboxLike>;
  #disposed = false;

  constructor(options: { size?: number; sandbox?: NodeSandboxOptions; start?: () => Promise<SandboxLike> } = {}) {
    this.#slots = Array.from({ length: Math.max(1, options.size ?? 2) }, () => undefined);
    this.#start = options.start ?? (() => NodeSandboxHost.start(options.sandbox));
  }

  /** Starts the first host in the background, so the first action finds a warm worker. */
  warm(): void {
    if (!this.#disposed) this.#slot(0).host.catch(() => undefined);
  }

  /** Runs `fn` on the least busy host. */
  async use<T>(fn: (host: SandboxLike) => Promise<T>): Promise<T> {
    if (this.#disposed) throw new Error("the sandbox pool was disposed");
    let index = 0;
    let least = Number.POSITIVE_INFINITY;
    this.#slots.forEach((slot, i) => {
      const busy = slot?.busy ?? 0;
      if (busy < least) {
        least = busy;
        index = i;
      }
    });
    const slot = this.#slot(index);
    slot.busy++;
    try {
      return await fn(await slot.host);
    } finally {
      slot.busy--;
    }
  }

  #slot(index: number): Slot {
    const existing = this.#slots[index];
    if (existing) return existing;
    const slot: Slot = { host: this.#start(), busy: 0 };
    slot.host.catch(() => {
      if (this.#slots[index] === slot) this.#slots[index] = undefined;
    });
    this.#slots[index] = slot;
    return slot;
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const hosts = this.#slots.map((slot) => slot?.host);
    this.#slots.fill(undefined);
    await Promise.all(hosts.map((host) => host?.then((h) => h.dispose()).catch(() => undefined)));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}
