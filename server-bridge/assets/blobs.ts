/**
 * Where an asset's bytes live, by their SHA-256: content-addressed files under `$DATA_DIR/assets`
 * (the default) or objects in an S3-compatible bucket (`ASSET_S3_BUCKET`, assets/s3-blobs.ts), which
 * servers on one Postgres share whatever their DATA_DIR. The rows stay in the store (assets/store.ts),
 * which decides when a blob is written and removed.
 */
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { newId } from "../../shared/gate/approvals.ts";
import type { ServerConfig } from "../config.ts";
import { contentName, contentOfName } from "./content-names.ts";
import { S3Blobs } from "./s3-blobs.ts";

export interface Blobs {
  /** Whether these bytes are stored (their content is their name, so stored means stored right). */
  has(sha256: string): Promise<boolean>;
  /** Stores bytes under their hash; writing the same bytes again is harmless. */
  put(sha256: string, bytes: Uint8Array): Promise<void>;
  /** The bytes, or undefined when they are not stored. */
  read(sha256: string): Promise<Uint8Array | undefined>;
  /** The bytes as a stream (for serving), or undefined when they are not stored. */
  open(sha256: string): Promise<Readable | undefined>;
  remove(sha256: string): Promise<void>;
  /** The hash of every content stored here, in no set order; names that are not ours are passed over. */
  list(): AsyncIterable<string>;
  /** What to tell the owner of a row whose bytes are not here: where this server looked, what to do. */
  missing(assetId: string): string;
  /** Where the bytes live, for the operator (`npm start` prints it). */
  readonly where: string;
  /** Throws unless the storage itself answers (a bucket that exists and lets this server in). */
  check(): Promise<void>;
}

/** Whether the storage answers, in a line for the operator's terminal. */
export async function checkBlobs(blobs: Blobs): Promise<{ ok: boolean; text: string }> {
  try {
    await blobs.check();
    return { ok: true, text: `${blobs.where} answers` };
  } catch (err) {
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const reason = storageFailure(err);
    const hint =
      status === 403
        ? " Check the keys and the bucket's policy: s3:GetObject, s3:PutObject, s3:DeleteObject, and s3:ListBucket (without it a missing object reads as refused)."
        : "";
    return { ok: false, text: `${blobs.where} does not answer: ${reason}.${hint}` };
  }
}

/**
 * A storage's failure in a line for the operator: its name, the HTTP status a bucket answered (a HEAD
 * answers a status alone, which the SDK calls `Unknown`), its message; at most 300 characters.
 */
export function storageFailure(err: unknown): string {
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const reason = err instanceof Error ? `${err.name}${status ? ` (${status})` : ""}: ${err.message}` : String(err);
  return reason.slice(0, 300);
}

export function blobsFor(config: Pick<ServerConfig, "assetS3">, dataDir: string): Blobs {
  return config.assetS3 ? new S3Blobs(config.assetS3) : new DiskBlobs(join(dataDir, "assets"));
}

/** `<root>/<first two hex>/<sha256>`, each moved into place whole from `<root>/tmp`. */
export class DiskBlobs implements Blobs {
  constructor(private readonly root: string) {}

  get where(): string {
    return this.root;
  }

  /** A directory is there to write in once the first asset comes; nothing to check before. */
  async check(): Promise<void> {}

  #path(sha256: string): string {
    return join(this.root, contentName(sha256));
  }

  async has(sha256: string): Promise<boolean> {
    return existsSync(this.#path(sha256));
  }

  async put(sha256: string, bytes: Uint8Array): Promise<void> {
    const tmpDir = join(this.root, "tmp");
    const tmp = join(tmpDir, newId("part"));
    try {
      mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
      mkdirSync(dirname(this.#path(sha256)), { recursive: true, mode: 0o700 });
      writeFileSync(tmp, bytes, { mode: 0o600 });
      renameSync(tmp, this.#path(sha256));
    } finally {
      rmSync(tmp, { force: true });
    }
  }

  async read(sha256: string): Promise<Uint8Array | undefined> {
    const path = this.#path(sha256);
    return existsSync(path) ? new Uint8Array(readFileSync(path)) : undefined;
  }

  async open(sha256: string): Promise<Readable | undefined> {
    const path = this.#path(sha256);
    return existsSync(path) ? createReadStream(path) : undefined;
  }

  async remove(sha256: string): Promise<void> {
    rmSync(this.#path(sha256), { force: true });
  }

  async *list(): AsyncIterable<string> {
    if (!existsSync(this.root)) return;
    for (const dir of readdirSync(this.root)) {
      if (!/^[0-9a-f]{2}$/.test(dir)) continue;
      for (const name of readdirSync(join(this.root, dir))) {
        const sha256 = contentOfName(`${dir}/${name}`);
        if (sha256) yield sha256;
      }
    }
  }

  /**
   * Most often a second server on the same Postgres with a `DATA_DIR` of its own: asset files are not
   * in the database.
   */
  missing(assetId: string): string {
    return `Asset ${assetId} exists, but its file is not in this server's data directory (DATA_DIR). Servers that share a Postgres must share DATA_DIR for asset files, or keep assets in one bucket (ASSET_S3_BUCKET); open it on the server that saved it, or save it again.`;
  }
}
