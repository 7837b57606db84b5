// batch(items, fn, {concurrency, stopOnError}): runs fn over items with bounded concurrency and never
// throws. Each item settles as {ok, index, item, value} or {ok: false, index, item, error: {code,
// message}}, in input order. Concurrency defaults to 4, clamped to 1..8. With stopOnError, items not
// yet started when one fails settle as cancelled. An item whose fn threw something without a code
// (the action's own error, not a capability's) settles as action_failed.

function errorOf(err) {
  if (err && typeof err === "object") {
    const out = { code: typeof err.code === "string" ? err.code : "action_failed", message: String(err.message) };
    if (typeof err.capability === "string") out.capability = err.capability;
    if (Array.isArray(err.issues)) out.issues = err.issues;
    return out;
  }
  return { code: "action_failed", message: String(err) };
}

export async function batch(items, fn, options) {
  let list;
  try {
    list = Array.from(items ?? []);
  } catch {
    return [];
  }
  const opts = options ?? {};
  const wanted = Number(opts.concurrency ?? 4);
  const concurrency = Math.min(8, Math.max(1, Number.isFinite(wanted) ? Math.floor(wanted) : 4));
  const stopOnError = Boolean(opts.stopOnError);
  const results = new Array(list.length);
  let next = 0;
  let stopped = false;
  async function lane() {
    while (next < list.length) {
      const index = next++;
      const item = list[index];
      if (stopped) {
        results[index] = {
          ok: false,
          index,
          item,
          error: { code: "cancelled", message: "Not run: an earlier item failed and stopOnError is set." },
        };
        continue;
      }
      try {
        results[index] = { ok: true, index, item, value: await fn(item, index) };
      } catch (err) {
        results[index] = { ok: false, index, item, error: errorOf(err) };
        if (stopOnError) stopped = true;
      }
    }
  }
  const lanes = [];
  for (let i = 0; i < Math.min(concurrency, list.length); i++) lanes.push(lane());
  await Promise.all(lanes);
  return results;
}
