/**
 * How long a provider may make a turn wait. The SDKs retry 429 and 5xx themselves (maxRetries,
 * honouring retry-after); this caps the wait: a response asking for more than MAX_RETRY_WAIT_MS is
 * marked `x-should-retry: false` (the header both SDKs obey), so the turn fails at once and says when
 * to retry instead of sleeping for minutes. It is the SDKs' public `fetch` option, nothing patched.
 */

export const MAX_RETRY_WAIT_MS = 20_000;

/** The wait a response asks for, in milliseconds (`retry-after-ms`, or `retry-after` in seconds or as a date). */
export function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** A fetch that lets the SDK retry only waits it may sit out. */
export function cappedRetryFetch(maxWaitMs = MAX_RETRY_WAIT_MS, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status !== 429 && response.status < 500) return response;
    const wait = retryAfterMs(response.headers);
    if (wait === undefined || wait <= maxWaitMs) return response;
    const headers = new Headers(response.headers);
    headers.set("x-should-retry", "false");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}
