/**
 * Trades the host's widget token for the iframe's credential (`POST /embed/session`, a same-origin
 * request of the widget's own page). The credential is returned to the caller and kept only in
 * memory: never in a cookie, storage or a URL. A refusal comes back as the server's coded failure.
 */
import { z } from "zod";
import { FailurePayload, failure } from "../../../shared/protocol/errors.ts";

const Exchanged = z.object({ credential: z.string().min(1), expires_at: z.string() });
const Refused = z.object({ error: FailurePayload });

export async function exchangeToken(
  widget: string,
  token: string,
): Promise<{ ok: true; credential: string } | { ok: false; error: FailurePayload }> {
  let res: Response;
  try {
    res = await fetch("/embed/session", {
      method: "POST",
      credentials: "omit",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ widget, token }),
    });
  } catch {
    return { ok: false, error: failure("capability_failed", "The server could not be reached; reload to try again.") };
  }
  const body: unknown = await res.json().catch(() => undefined);
  const exchanged = Exchanged.safeParse(body);
  if (res.ok && exchanged.success) return { ok: true, credential: exchanged.data.credential };
  const refused = Refused.safeParse(body);
  return {
    ok: false,
    error: refused.success ? refused.data.error : failure("capability_failed", `The server answered ${res.status}.`),
  };
}
