/**
 * An S3-compatible object store for tests (a cloud bucket cannot exist here): a real HTTP server on
 * loopback speaking the REST subset the asset store uses, path-style (`/<bucket>/<key>`): PUT, GET,
 * HEAD and DELETE of an object, HEAD of the bucket and ListObjectsV2 (in pages of `pageSize`, with
 * continuation tokens), with S3's XML. It checks what a real one checks: every request
 * signed with AWS Signature Version 4 by a known key (the signature recomputed here), the payload's
 * declared SHA-256 against the bytes, the bucket existing. `down` makes it answer 503s, as a store
 * that is unavailable does.
 */
import { createHash, createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { S3BlobConfig } from "../../server-bridge/assets/s3-blobs.ts";

export interface FakeS3 {
  /** `http://127.0.0.1:<port>` (for `ASSET_S3_ENDPOINT`). */
  readonly url: string;
  readonly bucket: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  /** The stored objects by key. */
  readonly objects: Map<string, Buffer>;
  /** `METHOD key` of every request that passed the signature check, in order. */
  readonly requests: string[];
  /** Refusals a test may want to read (a bad signature, a wrong payload hash). */
  readonly refusals: string[];
  /** While true, every request answers 503 SlowDown (an unavailable store). */
  down: boolean;
  /** The server's `assetS3` setting for this bucket, objects under `prefix`. */
  config(prefix?: string): S3BlobConfig;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const REGION = "us-east-1";

export async function startFakeS3(bucket = "team-assets", { pageSize = 1000 } = {}): Promise<FakeS3> {
  const credentials = { accessKeyId: "AKIAFAKETEST0000001", secretAccessKey: "fake-secret-key-for-tests-only" };
  const objects = new Map<string, Buffer>();
  const requests: string[] = [];
  const refusals: string[] = [];
  const state = { down: false };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => answer(req, res, Buffer.concat(chunks)));
  });

  function answer(req: IncomingMessage, res: ServerResponse, body: Buffer) {
    const url = new URL(req.url ?? "/", "http://s3.local");
    const [, name = "", ...rest] = url.pathname.split("/");
    const key = decodeURIComponent(rest.join("/"));
    const method = req.method ?? "GET";
    const refused = checkSignature(req, url, body, credentials);
    if (refused) {
      refusals.push(refused.message);
      return error(res, method, refused.status, refused.code, refused.message);
    }
    if (state.down) return error(res, method, 503, "SlowDown", "Please reduce your request rate.");
    if (name !== bucket) return error(res, method, 404, "NoSuchBucket", "The specified bucket does not exist.");
    requests.push(`${method} ${key}`);
    if (key === "" && method === "HEAD") {
      // HeadBucket: the bucket is there and this key may use it.
      res.writeHead(200, { "x-amz-bucket-region": REGION }).end();
      return;
    }
    if (key === "" && method === "GET" && url.searchParams.get("list-type") === "2") {
      return list(res, url.searchParams.get("prefix") ?? "", url.searchParams.get("continuation-token"));
    }
    const stored = objects.get(key);
    const etag = (bytes: Buffer) => `"${createHash("md5").update(bytes).digest("hex")}"`;
    switch (method) {
      case "PUT":
        objects.set(key, body);
        res.writeHead(200, { ETag: etag(body) }).end();
        return;
      case "GET":
      case "HEAD":
        if (!stored) return error(res, method, 404, "NoSuchKey", "The specified key does not exist.");
        res.writeHead(200, {
          "Content-Type": "application/octet-stream",
          "Content-Length": String(stored.byteLength),
          ETag: etag(stored),
          "Last-Modified": new Date().toUTCString(),
        });
        res.end(method === "GET" ? stored : undefined);
        return;
      case "DELETE":
        objects.delete(key);
        res.writeHead(204).end();
        return;
      default:
        error(res, method, 405, "MethodNotAllowed", "The specified method is not allowed against this resource.");
    }
  }

  /** ListObjectsV2: keys under `prefix` in order, `pageSize` at a time; the token is the last key sent, in hex. */
  function list(res: ServerResponse, prefix: string, token: string | null) {
    const after = token ? Buffer.from(token, "hex").toString() : "";
    const keys = [...objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
    const page = keys.slice(0, pageSize);
    const truncated = keys.length > page.length;
    const text = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    const contents = page.map((k) => {
      const bytes = objects.get(k) ?? Buffer.alloc(0);
      return `<Contents><Key>${text(k)}</Key><LastModified>${new Date().toISOString()}</LastModified><ETag>&quot;${createHash("md5").update(bytes).digest("hex")}&quot;</ETag><Size>${bytes.byteLength}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
    });
    const next = truncated
      ? `<NextContinuationToken>${Buffer.from(page.at(-1) ?? "").toString("hex")}</NextContinuationToken>`
      : "";
    const listing = `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${text(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${pageSize}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents.join("")}${next}</ListBucketResult>`;
    res.writeHead(200, { "Content-Type": "application/xml", "Content-Length": String(Buffer.byteLength(listing)) });
    res.end(listing);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const fake: FakeS3 = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bucket,
    credentials,
    objects,
    requests,
    refusals,
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    config: (prefix = "") => ({ bucket, prefix, region: REGION, endpoint: fake.url, credentials }),
    close,
    [Symbol.asyncDispose]: close,
  };
  return fake;
}

/** S3's error document (a HEAD answers the status alone, as S3 does). */
function error(res: ServerResponse, method: string, status: number, code: string, message: string) {
  if (method === "HEAD") {
    res.writeHead(status).end();
    return;
  }
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>fake</RequestId></Error>`;
  res.writeHead(status, { "Content-Type": "application/xml", "Content-Length": String(Buffer.byteLength(xml)) });
  res.end(xml);
}

const hmac = (key: Buffer | string, text: string) => createHmac("sha256", key).update(text).digest();
const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

/**
 * Signature Version 4 as S3 checks it: the canonical request rebuilt from what arrived, signed with the
 * key the credential names, compared with what the client sent.
 */
function checkSignature(
  req: IncomingMessage,
  url: URL,
  body: Buffer,
  credentials: { accessKeyId: string; secretAccessKey: string },
): { status: number; code: string; message: string } | undefined {
  const auth = req.headers.authorization ?? "";
  const parts =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!parts) return { status: 403, code: "AccessDenied", message: "Requests must be signed (AWS4-HMAC-SHA256)." };
  const [, keyId, date, region, signedHeaders = "", signature] = parts;
  if (keyId !== credentials.accessKeyId) {
    return { status: 403, code: "InvalidAccessKeyId", message: "The AWS access key Id you provided does not exist." };
  }
  if (region !== REGION) return { status: 400, code: "AuthorizationHeaderMalformed", message: `Region ${region}.` };
  const payloadHash = String(req.headers["x-amz-content-sha256"] ?? "");
  if (payloadHash !== "UNSIGNED-PAYLOAD" && payloadHash !== sha256(body)) {
    return { status: 400, code: "XAmzContentSHA256Mismatch", message: "The payload's hash is not the one declared." };
  }
  const names = signedHeaders.split(";");
  const headerLines = names.map(
    (name) =>
      `${name}:${String(req.headers[name] ?? "")
        .trim()
        .replace(/\s+/g, " ")}\n`,
  );
  const query = [...url.searchParams]
    .map(([k, v]) => [encodeURIComponent(k), encodeURIComponent(v)])
    .sort(([a = ""], [b = ""]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const canonical = [req.method, url.pathname, query, headerLines.join(""), signedHeaders, payloadHash].join("\n");
  const stamp = String(req.headers["x-amz-date"] ?? "");
  const scope = `${date}/${region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", stamp, scope, sha256(canonical)].join("\n");
  let key = hmac(`AWS4${credentials.secretAccessKey}`, date ?? "");
  for (const part of [region ?? "", "s3", "aws4_request"]) key = hmac(key, part);
  if (hmac(key, toSign).toString("hex") !== signature) {
    return {
      status: 403,
      code: "SignatureDoesNotMatch",
      message: "The request signature we calculated does not match the signature you provided.",
    };
  }
  return undefined;
}
