/**
 * The audit log writer: records queue in memory and are written in batches, one transaction each, never
 * one write per call. A record after a quiet spell is written at the next tick; while calls keep coming,
 * at most one batch is written per BATCH_MS (a page's sequential guest calls, a millisecond or two apart,
 * share one transaction instead of paying one each, with its journal write). `flush()` writes what is
 * queued now (on shutdown, when an MCP or CLI run ends, and in tests before they read the table); a
 * write that fails is logged by the caller's timer, never thrown into it.
 */
import type { AuditRecord } from "../../shared/gate/invoke.ts";
import type { Store } from "./db.ts";

/** The least time between two batches while records keep coming. */
export const BATCH_MS = 20;

export class AuditLog {
  #queue: (AuditRecord & { user_id: string; at: number })[] = [];
  /** Cancels the batch write scheduled for what is queued, when one is. */
  #unschedule: (() => void) | undefined;
  /** When the last batch was taken (performance.now()). */
  #lastBatch = Number.NEGATIVE_INFINITY;
  /** The batch being written now (batches are written one after another, in order). */
  #writing: Promise<void> = Promise.resolve();
  readonly #insert;

  constructor(
    private readonly store: Store,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.#insert = store.sql(
      `INSERT INTO audit (at, actor, user_id, session_id, run_id, capability, category, decision, outcome, duration_ms, waited_ms)
       VALUES (@at, @actor, @user_id, @session_id, @run_id, @capability, @category, @decision, @outcome, @duration_ms, @waited_ms)`,
    );
  }

  write(userId: string, record: AuditRecord): void {
    this.#queue.push({ ...record, user_id: userId, at: Date.now() });
    if (this.#unschedule) return;
    const write = () => {
      this.flush().catch((err: unknown) => this.onError(err));
    };
    const wait = this.#lastBatch + BATCH_MS - performance.now();
    if (wait > 0) {
      const timer = setTimeout(write, wait);
      this.#unschedule = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(write);
      this.#unschedule = () => clearImmediate(immediate);
    }
  }

  /** Writes what is queued; resolves once it, and every batch before it, is in the store. */
  flush(): Promise<void> {
    this.#unschedule?.();
    this.#unschedule = undefined;
    const batch = this.#queue;
    this.#queue = [];
    const previous = this.#writing.catch(() => {});
    if (batch.length > 0) this.#lastBatch = performance.now();
    const written = batch.length === 0 ? previous : previous.then(() => this.#write(batch));
    this.#writing = written;
    return written;
  }

  async #write(batch: readonly (AuditRecord & { user_id: string; at: number })[]): Promise<void> {
    // A call that finished after shutdown closed the store has nowhere to be written; a throw from
    // this timer would crash the process on its way out.
    if (!this.store.open) return;
    await this.store.tx(async () => {
      for (const record of batch) await this.#insert.run(record);
    });
  }
}
