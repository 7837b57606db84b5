/** Implementations of the `shared` namespace: per-run values, deleted with the run. */
import { listShared, readShared, shareResult } from "../../shared/capabilities/specs/shared.specs.ts";
import { fromJsonText, toJsonText } from "../../shared/protocol/values.ts";
import { implement } from "./define.ts";
import { failed } from "./errors.ts";

const MAX_VALUE_BYTES = 1_000_000;
const MAX_KEYS = 200;

export default [
  implement(listShared, async (run) => {
    const rows = run.services.store
      .sql("SELECT key, size, shared_at FROM shared_results WHERE run_id = ? ORDER BY shared_at, key")
      .all(run.context.run_id) as { key: string; size: number; shared_at: number }[];
    return { results: rows.map((r) => ({ key: r.key, size: r.size, shared_at: new Date(r.shared_at).toISOString() })) };
  }),
  implement(readShared, async (run, args) => {
    const row = run.services.store
      .sql("SELECT value FROM shared_results WHERE run_id = ? AND key = ?")
      .get(run.context.run_id, args.key) as { value: string } | undefined;
    if (!row) throw failed(`Nothing is shared under "${args.key}" in this run. Call shared.list() to see the keys.`);
    return { key: args.key, value: fromJsonText(row.value) };
  }),
  implement(shareResult, async (run, args) => {
    const json = toJsonText(args.value ?? null);
    if (json.length > MAX_VALUE_BYTES) {
      throw failed(
        `The value is ${json.length} bytes; a shared result holds at most ${MAX_VALUE_BYTES}. Share a smaller value.`,
      );
    }
    const { store } = run.services;
    return store.tx(() => {
      const count = (
        store
          .sql("SELECT count(*) AS n FROM shared_results WHERE run_id = ? AND key != ?")
          .get(run.context.run_id, args.key) as { n: number }
      ).n;
      if (count >= MAX_KEYS)
        throw failed(`This run already shares ${MAX_KEYS} results; overwrite an existing key instead.`);
      store
        .sql("INSERT OR REPLACE INTO shared_results (run_id, key, value, size, shared_at) VALUES (?, ?, ?, ?, ?)")
        .run(run.context.run_id, args.key, json, json.length, Date.now());
      return { key: args.key, size: json.length };
    });
  }),
];
