// batch(items, fn, {concurrency, stopOnError}): runs fn over items with bounded concurrency and never
// throws. Each item settles as {ok, index, item, value} or {ok: false, index, item, error: {code,
// message}}, in input order. Concurrency defaults to 4, clamped to 1..8. With stopOnError, items not
// yet started when one fails settle as cancelled. An item whose fn threw something without a code
// (the action's own error, not a capability's) settles as action_failed. Builtins come from
// intrinsics.js: an action that replaced Array.from or Promise.all still gets its batch.
import {
  ArrayCtor,
  ArrayFrom,
  ArrayIsArray,
  append,
  defineField,
  MathFloor,
  MathMax,
  MathMin,
  NumberCtor,
  NumberIsFinite,
  StringCtor,
} from "nodetool:intrinsics";

function errorOf(err) {
  if (err && typeof err === "object") {
    const out = {
      code: typeof err.code === "string" ? err.code : "action_failed",
      message: StringCtor(err.message),
    };
    if (typeof err.capability === "string") defineField(out, "capability", err.capability);
    if (ArrayIsArray(err.issues)) defineField(out, "issues", err.issues);
    return out;
  }
  return { code: "action_failed", message: StringCtor(err) };
}

/** The items as an array of our own: an array by index (no iterator), anything else through Array.from. */
function listOf(items) {
  if (!ArrayIsArray(items)) return ArrayFrom(items ?? []);
  const out = [];
  for (let i = 0; i < items.length; i++) append(out, items[i]);
  return out;
}

export async function batch(items, fn, options) {
  let list;
  try {
    list = listOf(items);
  } catch {
    return [];
  }
  const opts = options ?? {};
  const wanted = NumberCtor(opts.concurrency ?? 4);
  const concurrency = MathMin(8, MathMax(1, NumberIsFinite(wanted) ? MathFloor(wanted) : 4));
  const stopOnError = !!opts.stopOnError;
  const results = new ArrayCtor(list.length);
  let next = 0;
  let stopped = false;
  async function lane() {
    while (next < list.length) {
      const index = next++;
      const item = list[index];
      if (stopped) {
        defineField(results, index, {
          ok: false,
          index,
          item,
          error: { code: "cancelled", message: "Not run: an earlier item failed and stopOnError is set." },
        });
        continue;
      }
      try {
        defineField(results, index, { ok: true, index, item, value: await fn(item, index) });
      } catch (err) {
        defineField(results, index, { ok: false, index, item, error: errorOf(err) });
        if (stopOnError) stopped = true;
      }
    }
  }
  const lanes = [];
  for (let i = 0; i < MathMin(concurrency, list.length); i++) append(lanes, lane());
  // Awaited one by one rather than with Promise.all, which looks up Promise.resolve and each `then`.
  for (let i = 0; i < lanes.length; i++) await lanes[i];
  return results;
}
