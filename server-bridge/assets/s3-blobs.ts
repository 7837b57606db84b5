/**
 * Asset bytes in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, ...), through the official
 * client. Objects are named `<prefix><first two hex>/<sha256>`, as the files on disk are. Checksums are
 * sent only where the API requires them, which every S3-compatible store accepts; every request is
 * bounded in time, since the asset store makes its short ones (has, remove) inside a store transaction.
 * The SDK is loaded on first use: a server without a bucket (and every CLI command) never pays for it.
 */
import type { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import type { Blobs } from "./blobs.ts";
import { contentName, contentOfName } from "./content-names.ts";

export interface S3BlobConfig {
  bucket: string;
  /** Prepended to every object's name (`assets/`); empty by default. */
  prefix: string;
  region: string;
  /** Another S3-compatible service (`http://127.0.0.1:9000`); addressed path-style. */
  endpoint?: string | undefined;
  /** Absent: the SDK's own chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/** A request that has not answered in this long is given up (a short one: a transaction may be waiting). */
const SHORT_MS = 10_000;
/** An upload that has not finished in this long is given up (25 MiB at about 200 KiB/s). */
const PUT_MS = 120_000;

type Sdk = typeof import("@aws-sdk/client-s3");

export class S3Blobs implements Blobs {
  #s3: Promise<{ sdk: Sdk; client: S3Client }> | undefined;

  constructor(private readonly config: S3BlobConfig) {}

  get where(): string {
    const { bucket, prefix, endpoint } = this.config;
    return `s3://${bucket}/${prefix}${endpoint ? ` at ${endpoint}` : ""}`;
  }

  #open(): Promise<{ sdk: Sdk; client: S3Client }> {
    this.#s3 ??= import("@aws-sdk/client-s3").then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: this.config.region,
        ...(this.config.endpoint ? { endpoint: this.config.endpoint, forcePathStyle: true } : {}),
        ...(this.config.credentials ? { credentials: this.config.credentials } : {}),
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
        requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
        maxAttempts: 2,
      }),
    }));
    return this.#s3;
  }

  #object(sha256: string) {
    return { Bucket: this.config.bucket, Key: `${this.config.prefix}${contentName(sha256)}` };
  }

  async has(sha256: string): Promise<boolean> {
    const { sdk, client } = await this.#open();
    try {
      await client.send(new sdk.HeadObjectCommand(this.#object(sha256)), {
        abortSignal: AbortSignal.timeout(SHORT_MS),
      });
      return true;
    } catch (err) {
      if (isMissing(sdk, err)) return false;
      throw err;
    }
  }

  async put(sha256: string, bytes: Uint8Array): Promise<void> {
    const { sdk, client } = await this.#open();
    await client.send(
      new sdk.PutObjectCommand({
        ...this.#object(sha256),
        Body: bytes,
        ContentLength: bytes.byteLength,
        ContentType: "application/octet-stream",
      }),
      { abortSignal: AbortSignal.timeout(PUT_MS) },
    );
  }

  async read(sha256: string): Promise<Uint8Array | undefined> {
    const body = await this.#get(sha256);
    return body && (await body.transformToByteArray());
  }

  async open(sha256: string): Promise<Readable | undefined> {
    // In Node the SDK's body is a Readable (an IncomingMessage) with its helpers mixed in.
    return (await this.#get(sha256)) as Readable | undefined;
  }

  async #get(sha256: string) {
    const { sdk, client } = await this.#open();
    try {
      return (await client.send(new sdk.GetObjectCommand(this.#object(sha256)))).Body;
    } catch (err) {
      if (isMissing(sdk, err)) return undefined;
      throw err;
    }
  }

  async remove(sha256: string): Promise<void> {
    const { sdk, client } = await this.#open();
    await client.send(new sdk.DeleteObjectCommand(this.#object(sha256)), {
      abortSignal: AbortSignal.timeout(SHORT_MS),
    });
  }

  /** ListObjectsV2 under the prefix, page by page (s3:ListBucket); other objects there are passed over. */
  async *list(): AsyncIterable<string> {
    const { sdk, client } = await this.#open();
    const { bucket, prefix } = this.config;
    let token: string | undefined;
    do {
      const page = await client.send(
        new sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        { abortSignal: AbortSignal.timeout(SHORT_MS) },
      );
      for (const { Key } of page.Contents ?? []) {
        const sha256 = Key?.startsWith(prefix) ? contentOfName(Key.slice(prefix.length)) : undefined;
        if (sha256) yield sha256;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** The bucket itself answers (HeadBucket: s3:ListBucket), whatever objects it holds. */
  async check(): Promise<void> {
    const { sdk, client } = await this.#open();
    await client.send(new sdk.HeadBucketCommand({ Bucket: this.config.bucket }), {
      abortSignal: AbortSignal.timeout(SHORT_MS),
    });
  }

  missing(assetId: string): string {
    return `Asset ${assetId} exists, but its content is not in the server's asset bucket: it may have been removed from the bucket, or this server names another bucket than the server that saved it (the operator's ASSET_S3_BUCKET, ASSET_S3_PREFIX). Save it again.`;
  }
}

/** The object is not there: HEAD answers a bare 404 (`NotFound`), GET says `NoSuchKey` (a missing bucket is an error). */
function isMissing(sdk: Sdk, err: unknown): boolean {
  return (
    err instanceof sdk.S3ServiceException &&
    err.name !== "NoSuchBucket" &&
    (err.name === "NoSuchKey" || err.name === "NotFound" || err.$metadata.httpStatusCode === 404)
  );
}
