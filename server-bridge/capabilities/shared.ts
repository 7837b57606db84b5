/**
 * Implementations of the `shared` namespace: per-run values, deleted with the run. A run holds at
 * most SHARED_LIMITS (README: "shared"): bytes are counted as stored (UTF-8 JSON), per value and
 * for the whole run, so a run cannot fill the store by sharing many large values.
 */
import { listShared, readShared, shareResult } from "../../shared/capabilities/specs/shared.specs.ts";
import { fromJsonText, toJsonText } from "../../shared/protocol/values.ts";
import { implement } from "./define.ts";
import { failed } from "./errors.ts";

export const SHARED_LIMITS = { valueBytes: 1_000_000, keys: 200, runBytes: 8_000_000 } as const;

export default [
  implement(listShared, async (run) => {
    const rows = (await run.services.store
      .sql("SELECT key, size, shared_at FROM shared_results WHERE run_id = ? ORDER BY shared_at, key")
      .all(run.context.run_id)) as { key: string; size: number; shared_at: number }[];
    return { results: rows.map((r) => ({ key: r.key, size: r.size, shared_at: new Date(r.shared_at).toISOString() })) };
  }),
  implement(readShared, async (run, args) => {
    const row = (await run.services.store
      .sql("SELECT value FROM shared_results WHERE run_id = ? AND key = ?")
      .get(run.context.run_id, args.key)) as { value: string } | undefined;
    if (!row) throw failed(`Nothing is shared under "${args.key}" in this run. Call shared.list() to see the keys.`);
    return { key: args.key, value: fromJsonText(row.value) };
  }),
  implement(shareResult, async (run, args) => {
    const json = toJsonText(args.value ?? null);
    const size = Buffer.byteLength(json, "utf8");
    if (size > SHARED_LIMITS.valueBytes) {
      throw failed(
        `The value is ${size} bytes as JSON; a shared result holds at most ${SHARED_LIMITS.valueBytes}. Share a smaller value (or save it as an asset).`,
      );
    }
    const { store } = run.services;
    return await store.tx(async () => {
      const others = (await store
        .sql("SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes FROM shared_results WHERE run_id = ? AND key != ?")
        .get(run.context.run_id, args.key)) as { n: number; bytes: number };
      if (others.n >= SHARED_LIMITS.keys)
        throw failed(`This run already shares ${SHARED_LIMITS.keys} results; overwrite an existing key instead.`);
      if (others.bytes + size > SHARED_LIMITS.runBytes) {
        throw failed(
          `This run's shared results would reach ${others.bytes + size} bytes; a run holds at most ${SHARED_LIMITS.runBytes}. Overwrite or share fewer values (or save large ones as assets).`,
        );
      }
      await store
        .sql(
          `INSERT INTO shared_results (run_id, key, value, size, shared_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value, size = excluded.size, shared_at = excluded.shared_at`,
        )
        .run(run.context.run_id, args.key, json, size, Date.now());
      return { key: args.key, size };
    });
  }),
];
