/**
 * The audit log writer: records queue in memory and are written in one transaction per tick, never
 * one fsync per call. `flush()` writes what is queued now (used on shutdown and by tests); a write
 * that fails is logged by the caller's timer, never thrown into it.
 */
import type { AuditRecord } from "../../shared/gate/invoke.ts";
import type { Store } from "./db.ts";

export class AuditLog {
  #queue: (AuditRecord & { user_id: string; at: number })[] = [];
  #scheduled = false;
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
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.flush().catch((err: unknown) => this.onError(err));
      });
    }
  }

  /** Writes what is queued; resolves once it, and every batch before it, is in the store. */
  flush(): Promise<void> {
    this.#scheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    const previous = this.#writing.catch(() => {});
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
