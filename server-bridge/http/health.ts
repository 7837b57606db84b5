/**
 * `GET /health`: 200 `{ok: true}` only while the store answers a query, else 503 `{ok: false, error}`,
 * so a load balancer stops sending traffic to a server whose store is gone. The probe is bounded by a
 * short deadline (a hung database must not hang the check), and at most one probe is in flight: checks
 * that arrive while one runs share its answer instead of piling up on the store's pool. The error names
 * what failed in the operator's words; it never carries the URL, a password or a host (the driver's own
 * error goes to the log).
 */
import type { ServerResponse } from "node:http";
import type { ErrorCode } from "../../shared/protocol/errors.ts";
import type { AppServices } from "../app-services.ts";
import type { Store } from "../store/db.ts";
import { sendJson } from "./respond.ts";

export const HEALTH_TIMEOUT_MS = 2000;

type Probe = { ok: true } | { ok: false; code: ErrorCode; error: string };

export interface HealthCheck {
  answer(res: ServerResponse): Promise<void>;
}

export function healthCheck(store: Store, log: AppServices["log"], timeoutMs = HEALTH_TIMEOUT_MS): HealthCheck {
  let inFlight: Promise<Probe> | undefined;
  const probe = async (): Promise<Probe> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<Probe>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            ok: false,
            code: "timeout",
            error: `The ${store.dialect} store did not answer a query within ${timeoutMs} ms.`,
          }),
        timeoutMs,
      );
    });
    const select = () => store.sql("SELECT 1 AS one").get();
    // A pooled connection the database ended (a restart, an administrator) fails its next query; the
    // store is down only if a fresh one fails too.
    const query = select()
      .catch((err: unknown) => (connectionEnded(err) ? select() : Promise.reject(err)))
      .then(
        (): Probe => ({ ok: true }),
        (err: unknown): Probe => {
          log("warn", "health check: the store refused a query", err);
          return { ok: false, code: "capability_unavailable", error: reasonOf(store, err) };
        },
      );
    try {
      return await Promise.race([query, deadline]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    async answer(res) {
      inFlight ??= probe().finally(() => {
        inFlight = undefined;
      });
      const result = await inFlight;
      const base = { service: "nodetool-sandbox", store: store.dialect };
      if (result.ok) sendJson(res, 200, { ok: true, ...base });
      else sendJson(res, 503, { ok: false, ...base, code: result.code, error: result.error });
    },
  };
}

/** Postgres ended this connection (admin_shutdown, crash_shutdown) or it dropped: another may work. */
function connectionEnded(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = "code" in err ? err.code : undefined;
  return code === "57P01" || code === "57P02" || /Connection terminated/i.test(err.message);
}

/**
 * A reason without secrets: the database server's own words (they name a database or a role, never a
 * password or an address), or else only the error's code (`ECONNREFUSED`, `SQLITE_BUSY`).
 */
function reasonOf(store: Store, err: unknown): string {
  const what = `The ${store.dialect} store could not run a query`;
  if (!store.open) return `${what}: it is closed.`;
  if (err instanceof Error && "severity" in err && typeof err.message === "string") return `${what}: ${err.message}.`;
  const code = err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : undefined;
  return code ? `${what} (${code}).` : `${what}: the connection failed or was closed.`;
}
