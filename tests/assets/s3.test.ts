/**
 * Asset bytes in an S3-compatible bucket (`ASSET_S3_BUCKET`): the same capabilities and `/assets/<id>`
 * as on disk, the bytes in the bucket and nowhere under DATA_DIR, content stored once, a bucket that
 * fails leaving nothing half-saved and saying so with its code. The bucket is a real S3 protocol server
 * on loopback that checks every request's signature (tests/support/fake-s3.ts).
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkBlobs } from "../../server-bridge/assets/blobs.ts";
import { S3Blobs } from "../../server-bridge/assets/s3-blobs.ts";
import { configFromEnv } from "../../server-bridge/config.ts";
import { answerValue, errorOf, openRun } from "../engine/support.ts";
import { type FakeS3, startFakeS3 } from "../support/fake-s3.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { ASSETS, b64, png, unb64 } from "./support.ts";

const bucketOf = (s3: FakeS3, prefix = "team/") => ({
  assetS3: s3.config(prefix),
});
const keyOf = (bytes: Uint8Array | string, prefix = "team/") => {
  const sha = createHash("sha256").update(bytes).digest("hex");
  return `${prefix}${sha.slice(0, 2)}/${sha}`;
};
const fetchAsset = (server: TestServer, id: string, headers: Record<string, string> = {}, method = "GET") =>
  fetch(`${server.url}/assets/${id}`, { method, headers: { authorization: `Bearer ${server.token}`, ...headers } });

describe("assets in an S3-compatible bucket", () => {
  it("keeps the bytes in the bucket, serves and reads them as from disk, and stores one content once", async () => {
    await using s3 = await startFakeS3();
    await using server = await startTestServer(bucketOf(s3));
    const { call } = await openRun(server, "auto");

    const image = await png(20, 10);
    const pic = answerValue<{ id: string; width: number }>(
      await call(ASSETS, "save", [{ name: "pic.png", content: { $bytes: b64(image) } }]),
    );
    expect(pic.width).toBe(20);
    const notes = answerValue<{ id: string }>(await call(ASSETS, "save", ["notes.txt", "kept in the bucket"]));
    // Objects named by content under the prefix; nothing under DATA_DIR.
    expect(s3.objects.get(keyOf("kept in the bucket"))?.toString()).toBe("kept in the bucket");
    expect(s3.objects.size).toBe(2);
    expect(existsSync(join(server.dataDir, "assets"))).toBe(false);
    expect(s3.refusals).toEqual([]);

    // Read back through the capability (text and bytes) and the asset's address.
    expect(answerValue(await call(ASSETS, "get", [notes.id]))).toMatchObject({ content: "kept in the bucket" });
    const got = answerValue<{ bytes: { $bytes: string } }>(
      await call(ASSETS, "get", [{ asset_id: pic.id, include_bytes: true }]),
    );
    const stored = unb64(got.bytes.$bytes);
    expect(s3.objects.get(keyOf(stored))).toEqual(Buffer.from(stored));
    const served = await fetchAsset(server, pic.id);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("content-length")).toBe(String(stored.byteLength));
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(stored);
    const head = await fetchAsset(server, pic.id, {}, "HEAD");
    expect([head.status, head.headers.get("content-disposition")]).toEqual([200, expect.stringContaining("pic.png")]);
    const etag = served.headers.get("etag") ?? "";
    expect((await fetchAsset(server, pic.id, { "if-none-match": etag })).status).toBe(304);

    // The same text saved again is one object; it goes with the last row naming it.
    const again = answerValue<{ id: string }>(await call(ASSETS, "save", ["copy.txt", "kept in the bucket"]));
    expect(s3.objects.size).toBe(2);
    expect(s3.requests.filter((r) => r === `PUT ${keyOf("kept in the bucket")}`)).toHaveLength(1);
    answerValue(await call(ASSETS, "delete", [notes.id]));
    expect(s3.objects.has(keyOf("kept in the bucket"))).toBe(true);
    expect(await (await fetchAsset(server, again.id)).text()).toBe("kept in the bucket");
    answerValue(await call(ASSETS, "delete", [again.id]));
    expect(s3.objects.has(keyOf("kept in the bucket"))).toBe(false);
    expect([...s3.objects.keys()]).toEqual([keyOf(stored)]);
  });

  it("refuses a save the bucket cannot take with its code, keeps no row, and logs the bucket's answer", async () => {
    await using s3 = await startFakeS3();
    const logged: unknown[] = [];
    await using server = await startTestServer(bucketOf(s3), undefined, (_level, message, detail) =>
      logged.push(message, detail),
    );
    const { call } = await openRun(server, "auto");
    const kept = answerValue<{ id: string }>(await call(ASSETS, "save", ["kept.txt", "saved before"]));
    const doomed = answerValue<{ id: string }>(await call(ASSETS, "save", ["doomed.txt", "deleted while down"]));

    s3.down = true;
    const refused = errorOf(await call(ASSETS, "save", ["lost.txt", "while the bucket is down"]));
    expect(refused.code).toBe("capability_failed");
    expect(refused.message).toContain("could not write the asset's content: its asset storage is unavailable");
    expect(refused.message).not.toContain(s3.url);
    // The operator's log has the bucket's own answer (a 503), which the caller never sees.
    const status = (entry: unknown) => (entry as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    expect(logged.some((entry) => entry instanceof Error && status(entry) === 503)).toBe(true);
    // Reading an asset while the bucket is down: 503 with the coded message, never a 200 with no body.
    const unavailable = await fetchAsset(server, kept.id);
    expect(unavailable.status).toBe(503);
    expect(((await unavailable.json()) as { error: { code: string } }).error.code).toBe("capability_failed");
    expect(errorOf(await call(ASSETS, "get", [kept.id])).message).toContain("could not read the content");
    // Deleting while it is down deletes the asset; its bytes stay in the bucket, named by nothing (logged),
    // never the other way round (a row whose bytes are gone).
    expect(answerValue(await call(ASSETS, "delete", [doomed.id]))).toEqual({ deleted: doomed.id });
    expect(s3.objects.has(keyOf("deleted while down"))).toBe(true);
    const sha = keyOf("deleted while down", "").slice(3);
    expect(logged).toContain(`asset bytes ${sha} named by no asset could not be removed`);

    s3.down = false;
    const listed = answerValue<{ count: number; assets: { name: string }[] }>(await call(ASSETS, "list", [{}]));
    expect(listed.assets.map((a) => a.name)).toEqual(["kept.txt"]);
    expect(s3.objects.has(keyOf("saved before"))).toBe(true);
    expect(await (await fetchAsset(server, kept.id)).text()).toBe("saved before");
  });

  it("says the bucket no longer holds an asset's bytes, naming the bucket, and refuses wrong keys", async () => {
    await using s3 = await startFakeS3();
    await using server = await startTestServer(bucketOf(s3));
    const { call } = await openRun(server, "auto");
    const saved = answerValue<{ id: string }>(await call(ASSETS, "save", ["gone.txt", "removed behind our back"]));
    s3.objects.clear();
    const res = await fetchAsset(server, saved.id);
    expect(res.status).toBe(404);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("capability_failed");
    expect(error.message).toContain(`Asset ${saved.id} exists, but its content is not in the server's asset bucket`);
    // The bucket's name is the operator's: not told to the caller.
    expect(error.message).not.toContain(s3.bucket);
    expect(errorOf(await call(ASSETS, "get", [saved.id])).message).toContain("not in the server's asset bucket");

    // A server holding the wrong secret is refused by the bucket; the caller reads a coded refusal.
    await using wrong = await startTestServer({
      assetS3: { ...bucketOf(s3).assetS3, credentials: { ...s3.credentials, secretAccessKey: "not-the-secret" } },
    });
    const run = await openRun(wrong, "auto");
    expect(errorOf(await run.call(ASSETS, "save", ["x.txt", "x"])).code).toBe("capability_failed");
    expect(s3.refusals.at(-1)).toContain("signature we calculated does not match");
    expect(answerValue<{ count: number }>(await run.call(ASSETS, "list", [{}])).count).toBe(0);
  });
});

describe("checking a bucket", () => {
  it("says it answers only when the bucket itself does: not a misspelled one, not with a wrong secret", async () => {
    await using s3 = await startFakeS3();
    const config = s3.config();
    expect(await checkBlobs(new S3Blobs(config))).toEqual({
      ok: true,
      text: `s3://${s3.bucket}/ at ${s3.url} answers`,
    });
    const misspelled = await checkBlobs(new S3Blobs({ ...config, bucket: "team-asets" }));
    expect(misspelled).toMatchObject({ ok: false, text: expect.stringContaining("s3://team-asets/ at") });
    expect(misspelled.text).toContain("(404)");
    const refused = await checkBlobs(
      new S3Blobs({ ...config, credentials: { ...s3.credentials, secretAccessKey: "not-it" } }),
    );
    expect(refused).toMatchObject({ ok: false, text: expect.stringContaining("(403)") });
    expect(refused.text).toContain("s3:ListBucket");
  });
});

describe("ASSET_S3_* settings", () => {
  it("reads a bucket, its prefix, region, endpoint and keys, and refuses settings that cannot work", () => {
    expect(configFromEnv({}).assetS3).toBeUndefined();
    expect(
      configFromEnv({
        ASSET_S3_BUCKET: "team-assets",
        ASSET_S3_PREFIX: "nodetool/",
        ASSET_S3_ENDPOINT: "http://127.0.0.1:9000",
        ASSET_S3_ACCESS_KEY_ID: "minio",
        ASSET_S3_SECRET_ACCESS_KEY: "minio-secret",
      }).assetS3,
    ).toEqual({
      bucket: "team-assets",
      prefix: "nodetool/",
      region: "us-east-1",
      endpoint: "http://127.0.0.1:9000",
      credentials: { accessKeyId: "minio", secretAccessKey: "minio-secret" },
    });
    expect(configFromEnv({ ASSET_S3_BUCKET: "b-1", AWS_REGION: "eu-west-3" }).assetS3).toMatchObject({
      region: "eu-west-3",
      credentials: undefined,
    });
    expect(() => configFromEnv({ ASSET_S3_ENDPOINT: "http://127.0.0.1:9000" })).toThrow(
      "ASSET_S3_ENDPOINT set without ASSET_S3_BUCKET",
    );
    expect(() => configFromEnv({ ASSET_S3_BUCKET: "Team Assets" })).toThrow("must be a bucket name");
    expect(() => configFromEnv({ ASSET_S3_BUCKET: "b-1", ASSET_S3_PREFIX: "/abs" })).toThrow("ASSET_S3_PREFIX");
    expect(() => configFromEnv({ ASSET_S3_BUCKET: "b-1", ASSET_S3_ENDPOINT: "minio:9000" })).toThrow(
      "must be an http:// or https:// URL",
    );
    expect(() => configFromEnv({ ASSET_S3_BUCKET: "b-1", ASSET_S3_ACCESS_KEY_ID: "only-one" })).toThrow(
      "Set both ASSET_S3_ACCESS_KEY_ID and ASSET_S3_SECRET_ACCESS_KEY",
    );
  });
});
