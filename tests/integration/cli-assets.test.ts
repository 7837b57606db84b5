/**
 * `assets check`, `assets copy` and `assets sweep` as an operator runs them (a real process on the
 * suite's store), moving a server's asset files into a bucket: what is missing is listed by asset, the
 * copy is checked against each content's hash, may run again, and afterwards a server on the bucket
 * serves every asset with no files on its disk; the sweep removes the bytes no asset names, and only
 * those.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { contentName } from "../../server-bridge/assets/content-names.ts";
import { answerValue, openRun } from "../engine/support.ts";
import { cliOn } from "../support/cli.ts";
import { startFakeS3 } from "../support/fake-s3.ts";
import { startTestServer, tempDir } from "../support/server.ts";

const ASSETS = "@nodetool-ai/sandbox-nodetool/assets";

const hash = (text: string) => createHash("sha256").update(text).digest("hex");

interface Report {
  storage: string;
  contents: number;
  present: number;
  copied?: number;
  missing: { id: string; name: string }[];
}

describe("assets check | copy", () => {
  it("lists the assets a bucket lacks, copies their files into it (a damaged one refused), and the bucket then serves them", async () => {
    await using s3 = await startFakeS3();
    const bucket = {
      ASSET_S3_BUCKET: s3.bucket,
      ASSET_S3_ENDPOINT: s3.url,
      ASSET_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      ASSET_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    };
    const dataDir = tempDir();
    const ids: Record<string, string> = {};
    {
      // A server on disk saved three assets, two of them the same content, then stopped.
      const onDisk = await startTestServer({}, dataDir);
      const { call } = await openRun(onDisk, "auto");
      for (const [name, content] of [
        ["a.txt", "first"],
        ["b.txt", "second"],
        ["b-again.txt", "second"],
        ["damaged.txt", "third"],
      ]) {
        ids[name as string] = answerValue<{ id: string }>(await call(ASSETS, "save", [name, content])).id;
      }
      await onDisk.close();
    }
    // One file damaged on disk: its bytes are no longer what its name says.
    const sha = createHash("sha256").update("third").digest("hex");
    writeFileSync(join(dataDir, "assets", sha.slice(0, 2), sha), "tampered");

    const before = await cliOn(dataDir, ["assets", "check"], { env: bucket });
    expect(before.status).toBe(1);
    const checked = JSON.parse(before.stdout) as Report;
    expect(checked).toMatchObject({ storage: `s3://${s3.bucket}/ at ${s3.url}`, contents: 3, present: 0 });
    expect(checked.missing.map((m) => m.name).sort()).toEqual(["a.txt", "b-again.txt", "b.txt", "damaged.txt"]);
    expect(before.stderr).toContain("4 asset(s) have no bytes in");

    const copied = await cliOn(dataDir, ["assets", "copy"], { env: bucket });
    expect(copied.status).toBe(1);
    expect(JSON.parse(copied.stdout)).toMatchObject({
      contents: 3,
      present: 0,
      copied: 2,
      missing: [{ name: "damaged.txt" }],
    });
    expect(s3.objects.size).toBe(2);
    expect(copied.stderr).toContain("3/3 contents looked at");

    // Run again once the damaged asset is gone: nothing to copy, every asset has its bytes.
    {
      const server = await startTestServer({}, dataDir);
      answerValue(await (await openRun(server, "auto")).call(ASSETS, "delete", [ids["damaged.txt"]]));
      await server.close();
    }
    const again = await cliOn(dataDir, ["assets", "copy"], { env: bucket });
    expect([again.status, JSON.parse(again.stdout)]).toEqual([
      0,
      expect.objectContaining({ contents: 2, present: 2, copied: 0, missing: [] }),
    ]);
    expect((await cliOn(dataDir, ["assets", "check"], { env: bucket })).status).toBe(0);

    // A server on the bucket serves them with no asset files on its disk.
    rmSync(join(dataDir, "assets"), { recursive: true, force: true });
    const onBucket = await startTestServer(
      {
        assetS3: s3.config(),
      },
      dataDir,
    );
    try {
      const headers = { authorization: `Bearer ${onBucket.token}` };
      expect(await (await fetch(`${onBucket.url}/assets/${ids["b-again.txt"]}`, { headers })).text()).toBe("second");
    } finally {
      await onBucket[Symbol.asyncDispose]();
    }
  });

  it("refuses a copy onto the disk it reads, usage it does not know, and judges nothing missing on a bucket that does not answer", async () => {
    await using s3 = await startFakeS3();
    const dataDir = tempDir();
    const misspelled = await cliOn(dataDir, ["assets", "check"], {
      env: {
        ASSET_S3_BUCKET: "team-asets",
        ASSET_S3_ENDPOINT: s3.url,
        ASSET_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
        ASSET_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
      },
    });
    expect([misspelled.status, misspelled.stdout]).toEqual([3, ""]);
    expect(misspelled.stderr).toContain(`s3://team-asets/ at ${s3.url} did not answer`);
    expect(misspelled.stderr).toContain("nothing was judged missing");
    const same = await cliOn(dataDir, ["assets", "copy"]);
    expect(same.status).toBe(2);
    expect(same.stderr).toContain("already kept in");
    expect((await cliOn(dataDir, ["assets", "copy", "--from"])).stderr).toContain("usage: assets check | assets copy");
    expect((await cliOn(dataDir, ["assets", "check"])).stdout).toContain('"contents":0');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("sweeps the bytes no asset names from the bucket (a delete the bucket failed to confirm) and from disk, and nothing else", async () => {
    // Two objects a page, so the sweep reads the bucket's listing page after page.
    await using s3 = await startFakeS3("team-assets", { pageSize: 2 });
    const dataDir = tempDir();
    const server = await startTestServer({ assetS3: s3.config("assets/") }, dataDir);
    const { call } = await openRun(server, "auto");
    const kept = answerValue<{ id: string }>(await call(ASSETS, "save", ["kept.txt", "kept"]));
    const gone = answerValue<{ id: string }>(await call(ASSETS, "save", ["gone.txt", "gone"]));
    // The bucket stops answering while an asset is deleted: the row goes, its bytes stay, named by nothing.
    s3.down = true;
    answerValue(await call(ASSETS, "delete", [gone.id]));
    s3.down = false;
    await server.close();
    expect(s3.objects.has(`assets/${contentName(hash("gone"))}`)).toBe(true);
    // Objects that are not the server's: outside its prefix, and names it never writes.
    const foreign = [`other/${contentName(hash("x"))}`, "assets/readme.txt", `assets/ab/${hash("y")}`];
    for (const key of foreign) s3.objects.set(key, Buffer.from("not ours"));
    const bucket = {
      ASSET_S3_BUCKET: s3.bucket,
      ASSET_S3_PREFIX: "assets/",
      ASSET_S3_ENDPOINT: s3.url,
      ASSET_S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      ASSET_S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    };

    const asked = s3.requests.length;
    const dry = await cliOn(dataDir, ["assets", "sweep", "--dry-run"], { env: bucket });
    // Four objects under the prefix, two a page: the listing was read in two pages.
    expect(s3.requests.slice(asked).filter((r) => r === "GET ")).toHaveLength(2);
    expect([dry.status, JSON.parse(dry.stdout)]).toEqual([
      0,
      { storage: `s3://${s3.bucket}/assets/ at ${s3.url}`, listed: 2, named: 1, unnamed: 1, removed: 0, dry_run: true },
    ]);
    expect(dry.stderr).toContain("1 of 2 contents");
    expect(s3.objects.size).toBe(5);

    const swept = await cliOn(dataDir, ["assets", "sweep"], { env: bucket });
    expect([swept.status, JSON.parse(swept.stdout)]).toMatchObject([0, { listed: 2, unnamed: 1, removed: 1 }]);
    expect([...s3.objects.keys()].sort()).toEqual([`assets/${contentName(hash("kept"))}`, ...foreign].sort());
    expect(JSON.parse((await cliOn(dataDir, ["assets", "sweep"], { env: bucket })).stdout)).toMatchObject({
      unnamed: 0,
      removed: 0,
    });
    expect((await cliOn(dataDir, ["assets", "check"], { env: bucket })).status).toBe(0);
    // A bucket that stops answering stops the sweep: it says so and what it did before, exit 3.
    s3.down = true;
    const down = await cliOn(dataDir, ["assets", "sweep"], { env: bucket });
    s3.down = false;
    expect([down.status, JSON.parse(down.stdout)]).toMatchObject([
      3,
      { listed: 0, removed: 0, failed: expect.stringContaining("(503)") },
    ]);
    expect(down.stderr).toContain("The sweep stopped after 0 contents looked at");

    // On disk alike: a file no asset names goes; the asset's own, a half-written part and a stray stay.
    const diskDir = tempDir();
    {
      const onDisk = await startTestServer({}, diskDir);
      answerValue(await (await openRun(onDisk, "auto")).call(ASSETS, "save", ["a.txt", "on disk"]));
      await onDisk.close();
    }
    const root = join(diskDir, "assets");
    const orphan = join(root, contentName(hash("orphan")));
    mkdirSync(join(orphan, ".."), { recursive: true });
    writeFileSync(orphan, "orphan");
    mkdirSync(join(root, "tmp"), { recursive: true });
    writeFileSync(join(root, "tmp", "part_1"), "half");
    writeFileSync(join(root, contentName(hash("on disk")).slice(0, 2), "stray"), "stray");
    const onDisk = await cliOn(diskDir, ["assets", "sweep"]);
    expect([onDisk.status, JSON.parse(onDisk.stdout)]).toMatchObject([0, { listed: 2, unnamed: 1, removed: 1 }]);
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(join(root, contentName(hash("on disk"))))).toBe(true);
    expect(existsSync(join(root, "tmp", "part_1"))).toBe(true);
    expect((await cliOn(diskDir, ["assets", "check"])).status).toBe(0);
    expect((await cliOn(diskDir, ["assets", "sweep", "--now"])).status).toBe(2);
  });
});
