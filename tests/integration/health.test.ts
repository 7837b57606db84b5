/**
 * `GET /health` says whether the store answers: 503 with a reason (and no secret) while Postgres
 * refuses connections or a query hangs, 200 again once it recovers. The Postgres case runs in a
 * database of its own, so refusing connections there disturbs no other test's store.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { HEALTH_TIMEOUT_MS } from "../../server-bridge/http/health.ts";
import { withAdmin } from "../support/database.ts";
import { startTestServer, tempDir } from "../support/server.ts";

const onPostgres = Boolean(process.env.DATABASE_URL);

interface Health {
  ok: boolean;
  store: string;
  code?: string;
  error?: string;
}

async function health(url: string): Promise<{ status: number; body: Health }> {
  const res = await fetch(`${url}/health`);
  return { status: res.status, body: (await res.json()) as Health };
}

/** Stops (or again allows) new connections to `name` and ends the ones it has, as an outage would. */
async function refuseConnections(name: string, refuse: boolean): Promise<void> {
  await withAdmin(async (client) => {
    await client.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS ${refuse ? "false" : "true"}`);
    // Only the server's own connections (this role's): a superuser's backend in the database at that
    // moment (an autovacuum worker) cannot be ended by this role, and is no part of the outage.
    if (refuse) {
      await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND usename = current_user AND pid <> pg_backend_pid()",
        [name],
      );
    }
  });
}

describe("/health", () => {
  it("answers 200 with the store it runs on while the store answers", async () => {
    await using server = await startTestServer();
    const { status, body } = await health(server.url);
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, store: server.app.store.dialect });
  });

  // On SQLite a statement waits for the open transaction: held open, the store hangs for /health.
  // (On Postgres the pool answers beside a transaction, so this way to hang it is SQLite's alone.)
  it.skipIf(onPostgres)(
    "answers 503 timeout when a query does not come back in time, and 200 once it does",
    async () => {
      await using server = await startTestServer();
      let release = () => {};
      const held = server.app.store.tx(() => new Promise<void>((resolve) => (release = resolve)));
      try {
        // The store stays held: only the health check's own limit can have answered this.
        const hung = await health(server.url);
        expect(hung.status).toBe(503);
        expect(hung.body).toMatchObject({ ok: false, store: "sqlite", code: "timeout" });
        expect(hung.body.error).toContain(`within ${HEALTH_TIMEOUT_MS} ms`);
      } finally {
        release();
        await held;
      }
      expect((await health(server.url)).status).toBe(200);
    },
  );

  it.skipIf(!onPostgres)(
    "answers 503 while Postgres refuses connections, naming why without secrets, and 200 after it only ended some",
    async () => {
      const name = `nt_health_${randomBytes(4).toString("hex")}`;
      await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
      const url = new URL(process.env.DATABASE_URL as string);
      url.pathname = `/${name}`;
      try {
        await using server = await startTestServer({ databaseUrl: url.toString() }, tempDir());
        expect((await health(server.url)).status).toBe(200);

        // Connections the database ends (a restart, an administrator) are not an outage: fresh ones work.
        for (let i = 0; i < 3; i++) {
          await withAdmin((client) =>
            client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]),
          );
          expect((await health(server.url)).status).toBe(200);
        }

        await refuseConnections(name, true);
        const down = await health(server.url);
        expect(down.status).toBe(503);
        expect(down.body).toMatchObject({ ok: false, store: "postgres", code: "capability_unavailable" });
        expect(down.body.error).toContain(`database "${name}" is not currently accepting connections`);
        expect(down.body.error).not.toContain(url.password);
        expect(down.body.error).not.toContain(url.hostname);

        await refuseConnections(name, false);
        await expect.poll(async () => (await health(server.url)).status, { timeout: 5000 }).toBe(200);
      } finally {
        await refuseConnections(name, false);
        await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      }
    },
  );
});
