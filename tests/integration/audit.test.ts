/**
 * The audit log writer (server-bridge/store/audit.ts) on a real store (SQLite, or Postgres when the
 * suite runs there): records that keep coming share transactions, none is lost, and `flush` writes
 * what is queued at once.
 */
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../server-bridge/store/audit.ts";
import { openStore, type Store } from "../../server-bridge/store/db.ts";
import type { AuditRecord } from "../../shared/gate/invoke.ts";
import { databaseFor, dropDatabaseFor } from "../support/database.ts";
import { tempDir } from "../support/server.ts";

function record(i: number): AuditRecord {
  return {
    actor: "agent",
    run_id: "run_audit",
    session_id: "ses_audit",
    capability: `call_${i}`,
    category: "read",
    decision: "run",
    outcome: "ok",
    duration_ms: 1,
    waited_ms: 0,
  };
}

/** The store, with its transactions counted. */
async function countedStore(dataDir: string): Promise<{ store: Store; transactions: () => number }> {
  const store = await openStore(dataDir, await databaseFor(dataDir));
  let transactions = 0;
  const counted = Object.create(store, {
    tx: {
      value: <T>(fn: () => Promise<T>) => {
        transactions++;
        return store.tx(fn);
      },
    },
  }) as Store;
  return { store: counted, transactions: () => transactions };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("the audit log", () => {
  it("writes records that keep coming a tick apart in a few transactions, not one each, and loses none", async () => {
    const dataDir = tempDir();
    const { store, transactions } = await countedStore(dataDir);
    try {
      const audit = new AuditLog(store);
      for (let i = 0; i < 50; i++) {
        audit.write("usr_audit", record(i));
        await tick();
      }
      await audit.flush();
      const rows = (await store.sql("SELECT capability FROM audit ORDER BY id").all()) as { capability: string }[];
      expect(rows.map((row) => row.capability)).toEqual(Array.from({ length: 50 }, (_, i) => `call_${i}`));
      // One transaction per tick wrote 50; a batch at most every BATCH_MS writes a handful.
      expect(transactions()).toBeLessThan(10);
    } finally {
      await store.dispose();
      await dropDatabaseFor(dataDir);
    }
  });

  it("writes a lone record at the next tick, and flush writes what is queued at once", async () => {
    const dataDir = tempDir();
    const { store } = await countedStore(dataDir);
    try {
      const audit = new AuditLog(store);
      const count = async () => ((await store.sql("SELECT count(*) AS n FROM audit").get()) as { n: number }).n;
      audit.write("usr_audit", record(1));
      await expect.poll(count).toBe(1);
      // Within the batch interval of the last write: queued until the next batch, or a flush.
      audit.write("usr_audit", record(2));
      await audit.flush();
      expect(await count()).toBe(2);
    } finally {
      await store.dispose();
      await dropDatabaseFor(dataDir);
    }
  });
});
