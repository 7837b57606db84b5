/**
 * Asset storage: metadata rows in the store (per user), bytes content-addressed in a blob storage
 * (assets/blobs.ts: files under $DATA_DIR/assets, or an S3-compatible bucket). Identical content is
 * stored once however many rows name it; the blob goes with the last row. The bytes are written before
 * the row's transaction and checked again inside it, and a delete checks for other rows in its own
 * (the store's transactions are serialised, on SQLite and Postgres alike), so several processes sharing
 * the storage never leave a row without its bytes. Sizes and the per-user quota are enforced here.
 */

import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { newId } from "../../shared/gate/approvals.ts";
import { formatBytes } from "../../shared/protocol/durations.ts";
import { AssetRef } from "../../shared/protocol/values.ts";
import { failed, notFound } from "../capabilities/errors.ts";
import type { ServerConfig } from "../config.ts";
import type { Store } from "../store/db.ts";
import type { Blobs } from "./blobs.ts";

export interface AssetLimits {
  /** Largest single asset, in bytes. */
  readonly maxBytes: number;
  /** Total bytes of one user's assets. */
  readonly quotaBytes: number;
}

export const DEFAULT_ASSET_LIMITS: AssetLimits = { maxBytes: 25 * 1024 * 1024, quotaBytes: 1024 * 1024 * 1024 };

export function assetLimits(config: ServerConfig): AssetLimits {
  return { maxBytes: config.assetMaxBytes, quotaBytes: config.assetQuotaBytes };
}

export type AssetKind = "image" | "text" | "binary";

export interface AssetRow {
  id: string;
  user_id: string;
  name: string;
  content_type: string;
  kind: AssetKind;
  size: number;
  sha256: string;
  width: number | null;
  height: number | null;
  created_at: number;
}

export interface NewAsset {
  name: string;
  contentType: string;
  kind: AssetKind;
  bytes: Uint8Array;
  width?: number | undefined;
  height?: number | undefined;
}

/** What callers see of an asset: never the hash or the file's place. */
export function assetView(row: AssetRow) {
  return {
    id: row.id,
    asset: new AssetRef(row.id),
    name: row.name,
    content_type: row.content_type,
    kind: row.kind,
    size: row.size,
    ...(row.width !== null && row.height !== null ? { width: row.width, height: row.height } : {}),
    url: `/assets/${row.id}`,
    created_at: new Date(row.created_at).toISOString(),
  };
}

export class AssetStore {
  constructor(
    private readonly store: Store,
    readonly blobs: Blobs,
    readonly limits: AssetLimits = DEFAULT_ASSET_LIMITS,
    /** The operator's log: bytes that could not be removed (harmless: nothing names them). */
    private readonly log: (message: string, detail: unknown) => void = () => {},
  ) {}

  async insert(userId: string, asset: NewAsset): Promise<AssetRow> {
    const size = asset.bytes.byteLength;
    if (size > this.limits.maxBytes) {
      throw failed(
        `The asset is ${formatBytes(size)}; one asset may be at most ${formatBytes(this.limits.maxBytes)}. Save something smaller (resize or compress it).`,
      );
    }
    const sha256 = createHash("sha256").update(asset.bytes).digest("hex");
    const row: AssetRow = {
      id: newId("ast"),
      user_id: userId,
      name: asset.name,
      content_type: asset.contentType,
      kind: asset.kind,
      size,
      sha256,
      width: asset.width ?? null,
      height: asset.height ?? null,
      created_at: Date.now(),
    };
    const keep = () =>
      storing("write the asset's content", async () => {
        if (!(await this.blobs.has(sha256))) await this.blobs.put(sha256, asset.bytes);
      });
    // Checked before the bytes travel (a save that cannot fit uploads nothing), and again below.
    await this.#withinQuota(userId, size);
    await keep();
    try {
      return await this.store.tx(async () => {
        await this.#withinQuota(userId, size);
        // A delete of the last row naming these bytes may have removed them since: checked (and
        // written again) inside the transaction, where no delete can come in between.
        await keep();
        await this.store
          .sql(
            `INSERT INTO assets (id, user_id, name, content_type, kind, size, sha256, width, height, created_at)
             VALUES (@id, @user_id, @name, @content_type, @kind, @size, @sha256, @width, @height, @created_at)`,
          )
          .run(row);
        return row;
      });
    } catch (err) {
      // Bytes written for a row that was not kept go too, unless another row names them.
      await this.#dropIfUnnamed(sha256);
      throw err;
    }
  }

  async #withinQuota(userId: string, size: number): Promise<void> {
    const used = (
      (await this.store.sql("SELECT coalesce(sum(size), 0) AS n FROM assets WHERE user_id = ?").get(userId)) as {
        n: number;
      }
    ).n;
    if (used + size > this.limits.quotaBytes) {
      throw failed(
        `Saving this asset (${formatBytes(size)}) would pass the ${formatBytes(this.limits.quotaBytes)} the user may keep (${formatBytes(used)} in use). Delete assets you no longer need first.`,
      );
    }
  }

  /**
   * Removes bytes no row names any more, in a transaction of its own (so no insert comes in between)
   * after the row's own has committed: a removal that fails, or fails to say it succeeded, can only
   * leave bytes nobody names (logged), never a row without its bytes.
   */
  async #dropIfUnnamed(sha256: string): Promise<void> {
    await this.removeIfUnnamed(sha256).catch((err: unknown) =>
      this.log(`asset bytes ${sha256} named by no asset could not be removed`, err),
    );
  }

  /**
   * Removes the bytes `sha256` unless an asset names them, inside a transaction, so no save can name
   * them in between (a save checks its bytes again inside its own). Answers whether they were removed.
   */
  async removeIfUnnamed(sha256: string): Promise<boolean> {
    return this.store.tx(async () => {
      const named = await this.store.sql("SELECT 1 FROM assets WHERE sha256 = ? LIMIT 1").get(sha256);
      if (named) return false;
      await this.blobs.remove(sha256);
      return true;
    });
  }

  async find(userId: string, id: string): Promise<AssetRow | undefined> {
    return (await this.store.sql("SELECT * FROM assets WHERE id = ? AND user_id = ?").get(id, userId)) as
      | AssetRow
      | undefined;
  }

  async require(userId: string, id: string): Promise<AssetRow> {
    const row = await this.find(userId, id);
    if (!row) throw notFound("asset", id, "Call assets.list() for the ids of saved assets.");
    return row;
  }

  /** Whether the bytes behind a row are in the storage. */
  async has(row: AssetRow): Promise<boolean> {
    return storing(`read the content of asset ${row.id}`, () => this.blobs.has(row.sha256));
  }

  /** The bytes behind a row, as a stream (for serving); undefined when they are not in the storage. */
  async open(row: AssetRow): Promise<Readable | undefined> {
    return storing(`read the content of asset ${row.id}`, () => this.blobs.open(row.sha256));
  }

  async read(row: AssetRow): Promise<Uint8Array> {
    const bytes = await storing(`read the content of asset ${row.id}`, () => this.blobs.read(row.sha256));
    if (!bytes) throw failed(this.blobs.missing(row.id));
    return bytes;
  }

  async list(userId: string, filter: { limit: number; offset: number; content_type?: string; query?: string }) {
    const where = `user_id = ? AND (CAST(? AS TEXT) IS NULL OR content_type LIKE ? ESCAPE '\\') AND (CAST(? AS TEXT) IS NULL OR instr(lower(name), lower(?)) > 0)`;
    const prefix = filter.content_type === undefined ? null : `${filter.content_type.replace(/[\\%_]/g, "\\$&")}%`;
    const params = [userId, prefix, prefix, filter.query ?? null, filter.query ?? null];
    const rows = (await this.store
      .sql(`SELECT * FROM assets WHERE ${where} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`)
      .all(...params, filter.limit, filter.offset)) as AssetRow[];
    const count = (
      (await this.store.sql(`SELECT count(*) AS n FROM assets WHERE ${where}`).get(...params)) as { n: number }
    ).n;
    return { assets: rows.map(assetView), count };
  }

  async delete(userId: string, id: string): Promise<void> {
    const row = await this.store.tx(async () => {
      const row = await this.require(userId, id);
      await this.store.sql("DELETE FROM assets WHERE id = ?").run(id);
      return row;
    });
    await this.#dropIfUnnamed(row.sha256);
  }
}

/**
 * A failure of the blob storage (a disk, a bucket) as a coded refusal: the message says what failed and
 * what to do, never the host error (it names paths, errno text, a bucket's answer). That stays on
 * `cause`, for server logs.
 */
async function storing<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const coded = failed(
      `The server could not ${what}: its asset storage is unavailable or full. Try again later; if it keeps failing, the server's operator should check its disk or bucket.`,
    );
    coded.cause = err;
    throw coded;
  }
}
