/**
 * The audit log writer: records queue in memory and are written in one transaction per tick, never
 * one fsync per call. `flush()` writes what is queued now (used on shutdown and by tests).
 */
import type { AuditRecord } from "../../shared/gate/invoke.ts";
import type { Store } from "./db.ts";

export class AuditLog {
  #queue: (AuditRecord & { user_id: string; at: number })[] = [];
  #scheduled = false;
  readonly #insert;

  constructor(private readonly store: Store) {
    this.#insert = store.sql(
      `INSERT INTO audit (at, actor, user_id, session_id, run_id, capability, category, decision, outcome, duration_ms, waited_ms)
       VALUES (@at, @actor, @user_id, @session_id, @run_id, @capability, @category, @decision, @outcome, @duration_ms, @waited_ms)`,
    );
  }

  write(userId: string, record: AuditRecord): void {
    this.#queue.push({ ...record, user_id: userId, at: Date.now() });
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.#scheduled = false;
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    // A call that finished after shutdown closed the store has nowhere to be written; a throw from
    // this timer would crash the process on its way out.
    if (!this.store.db.open) return;
    this.store.tx(() => {
      for (const record of batch) this.#insert.run(record);
    });
  }
}
