/**
 * What the CLI says about its store, as an operator sees it from a real process: the start-up banner
 * names the store, and a store that cannot be opened is reported with the setting to check and where
 * it pointed, never with the password; a command without DATABASE_URL on a Postgres server's DATA_DIR
 * is refused instead of quietly opening a second, SQLite store there.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, startCli } from "../support/cli.ts";
import { databaseFor, dropDatabaseFor, storeEnv } from "../support/database.ts";
import { startFakeS3 } from "../support/fake-s3.ts";
import { startTestServer, tempDir } from "../support/server.ts";

const admin = process.env.DATABASE_URL;

describe("the store at start-up", () => {
  it("names the store in the banner: SQLite and its file, or Postgres without the password", async () => {
    const dataDir = tempDir();
    const databaseUrl = await databaseFor(dataDir);
    try {
      await using server = await startCli({ DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) });
      if (databaseUrl) {
        const url = new URL(databaseUrl);
        expect(server.banner).toContain(`store: postgres://${url.username}@${url.host}${url.pathname}\n`);
        expect(server.banner).not.toContain(`:${url.password}@`);
      } else {
        expect(server.banner).toContain(`store: SQLite ${join(dataDir, "nodetool.sqlite")}\n`);
      }
      expect(server.banner).toContain(`assets: ${join(dataDir, "assets")}\n`);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    } finally {
      await dropDatabaseFor(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("names the asset bucket in the banner, then says whether it answers, and why not (keys refused: the policy to check)", async () => {
    await using s3 = await startFakeS3();
    const bucket = {
      ASSET_S3_BUCKET: s3.bucket,
      ASSET_S3_PREFIX: "nt/",
      ASSET_S3_ENDPOINT: s3.url,
      ASSET_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    };
    const dataDir = tempDir();
    try {
      const store = await storeEnv(dataDir);
      {
        await using server = await startCli({
          ...store,
          ...bucket,
          ASSET_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
        });
        expect(server.banner).toContain(`assets: s3://${s3.bucket}/nt/ at ${s3.url}\n`);
        while (!server.output().stdout.includes("answers")) await new Promise((r) => setTimeout(r, 20));
        expect(server.output().stdout).toContain(`assets: s3://${s3.bucket}/nt/ at ${s3.url} answers\n`);
      }
      await using refused = await startCli({
        ...store,
        ...bucket,
        ASSET_S3_SECRET_ACCESS_KEY: "wrong",
      });
      while (!refused.output().stderr.includes("assets:")) await new Promise((r) => setTimeout(r, 20));
      const said = refused.output().stderr;
      expect(said).toContain(`assets: s3://${s3.bucket}/nt/ at ${s3.url} does not answer:`);
      expect(said).toContain("(403)");
      expect(said).toContain("s3:ListBucket");
      expect(said).not.toContain("wrong");
    } finally {
      await dropDatabaseFor(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.skipIf(!admin)("a wrong password names DATABASE_URL, the server and the reason, never the password", async () => {
    const url = new URL(admin as string);
    const password = "not-the-password-4f1c";
    url.password = password;
    const dataDir = tempDir();
    try {
      const out = await runCli(["start"], { DATA_DIR: dataDir, PORT: "0", DATABASE_URL: url.toString() });
      expect(out.status).not.toBe(0);
      expect(out.stderr).toContain(
        `Could not open the Postgres store at DATABASE_URL (postgres://${url.username}@${url.host}${url.pathname}): password authentication failed for user "${url.username}". Check DATABASE_URL.`,
      );
      expect(out.stderr + out.stdout).not.toContain(password);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("an unreachable Postgres names DATABASE_URL and the host it tried", async () => {
    const dataDir = tempDir();
    try {
      // Port 1 on loopback: nothing listens there, so the connection is refused at once.
      const out = await runCli(["token", "list"], {
        DATA_DIR: dataDir,
        DATABASE_URL: "postgres://ops:secret-pw-93a1@127.0.0.1:1/nodetool",
      });
      expect(out.status).not.toBe(0);
      expect(out.stderr).toContain(
        "Could not open the Postgres store at DATABASE_URL (postgres://ops@127.0.0.1:1/nodetool): ",
      );
      expect(out.stderr).toContain("ECONNREFUSED");
      expect(out.stderr).toContain("Check DATABASE_URL.");
      expect(out.stderr).not.toContain("secret-pw-93a1");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("a command on a Postgres server's DATA_DIR", () => {
  it.skipIf(!admin)("is refused without DATABASE_URL (exit 2, nothing created), and works with it", async () => {
    await using server = await startTestServer();
    const tokenFile = readFileSync(join(server.dataDir, "token"), "utf8");

    const refused = await runCli(["token", "add", "--name", "ci"], { DATA_DIR: server.dataDir });
    expect(refused.status).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain(`DATA_DIR ${server.dataDir} belongs to a server whose store is in Postgres`);
    expect(refused.stderr).toContain("Set DATABASE_URL");
    expect(existsSync(join(server.dataDir, "nodetool.sqlite"))).toBe(false);
    expect(readFileSync(join(server.dataDir, "token"), "utf8")).toBe(tokenFile);
    // The marker that told it so names the store without the password.
    const marker = readFileSync(join(server.dataDir, "postgres-store"), "utf8");
    expect(marker).toMatch(/^postgres:\/\//);
    expect(marker).not.toContain(`:${new URL(admin as string).password}@`);

    const added = await runCli(["token", "add", "--name", "ci"], {
      DATA_DIR: server.dataDir,
      DATABASE_URL: (await databaseFor(server.dataDir)) as string,
    });
    expect(added.status, added.stderr).toBe(0);
    const { token } = JSON.parse(added.stdout) as { token: string };
    const res = await fetch(`${server.url}/trpc/session.create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: "{}",
    });
    expect(res.status).toBe(200);
  });
});
