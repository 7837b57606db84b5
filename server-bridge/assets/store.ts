/**
 * Asset storage: metadata rows in SQLite (per user), bytes in content-addressed files under
 * $DATA_DIR/assets/<first two hex>/<sha256>. Identical content is stored once however many rows name
 * it; the file goes with the last row. The file is moved into place and the row inserted in one
 * IMMEDIATE transaction, and a delete checks for other rows in one too, so several processes sharing
 * the directory never leave a row without its file. Sizes and the per-user quota are enforced here.
 */

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newId } from "../../shared/gate/approvals.ts";
import { formatBytes } from "../../shared/protocol/durations.ts";
import { AssetRef } from "../../shared/protocol/values.ts";
import { failed, notFound } from "../capabilities/errors.ts";
import type { ServerConfig } from "../config.ts";
import type { Store } from "../store/db.ts";

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
  readonly #root: string;

  constructor(
    private readonly store: Store,
    private readonly limits: AssetLimits = DEFAULT_ASSET_LIMITS,
  ) {
    this.#root = join(store.dataDir, "assets");
  }

  #path(sha256: string): string {
    return join(this.#root, sha256.slice(0, 2), sha256);
  }

  async insert(userId: string, asset: NewAsset): Promise<AssetRow> {
    const size = asset.bytes.byteLength;
    if (size > this.limits.maxBytes) {
      throw failed(
        `The asset is ${formatBytes(size)}; one asset may be at most ${formatBytes(this.limits.maxBytes)}. Save something smaller (resize or compress it).`,
      );
    }
    const sha256 = createHash("sha256").update(asset.bytes).digest("hex");
    const final = this.#path(sha256);
    const tmpDir = join(this.#root, "tmp");
    const tmp = join(tmpDir, newId("part"));
    try {
      mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
      mkdirSync(join(this.#root, sha256.slice(0, 2)), { recursive: true, mode: 0o700 });
      writeFileSync(tmp, asset.bytes, { mode: 0o600 });
    } catch (err) {
      rmSync(tmp, { force: true });
      throw storageFailed("could not write the asset's content", err);
    }
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
    try {
      return await this.store.tx(async () => {
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
        // Same content: the file already holds these very bytes, so only the row is new.
        try {
          if (existsSync(final)) unlinkSync(tmp);
          else renameSync(tmp, final);
        } catch (err) {
          throw storageFailed("could not write the asset's content", err);
        }
        await this.store
          .sql(
            `INSERT INTO assets (id, user_id, name, content_type, kind, size, sha256, width, height, created_at)
             VALUES (@id, @user_id, @name, @content_type, @kind, @size, @sha256, @width, @height, @created_at)`,
          )
          .run(row);
        return row;
      });
    } finally {
      rmSync(tmp, { force: true });
    }
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

  /** The file behind a row (for streaming); undefined when it has gone missing from disk. */
  fileOf(row: AssetRow): string | undefined {
    const path = this.#path(row.sha256);
    return existsSync(path) ? path : undefined;
  }

  read(row: AssetRow): Uint8Array {
    const path = this.fileOf(row);
    if (!path) throw failed(missingFileMessage(row));
    try {
      return new Uint8Array(readFileSync(path));
    } catch (err) {
      throw storageFailed(`could not read the content of asset ${row.id}`, err);
    }
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
    await this.store.tx(async () => {
      const row = await this.require(userId, id);
      await this.store.sql("DELETE FROM assets WHERE id = ?").run(id);
      const others = await this.store.sql("SELECT 1 FROM assets WHERE sha256 = ? LIMIT 1").get(row.sha256);
      if (!others) rmSync(this.#path(row.sha256), { force: true });
    });
  }
}

/**
 * The row is in the store but its file is not under this server's `$DATA_DIR/assets`: most often a
 * second server on the same Postgres with a `DATA_DIR` of its own (asset files are not in the database).
 */
export function missingFileMessage(row: Pick<AssetRow, "id">): string {
  return `Asset ${row.id} exists, but its file is not in this server's data directory (DATA_DIR). Servers that share a Postgres must share DATA_DIR for asset files; open it on the server that saved it, or save it again.`;
}

/**
 * A disk failure under the asset store, as a coded refusal: the message says what failed and what to
 * do, never the host error (it names paths and errno text). That stays on `cause`, for server logs.
 */
function storageFailed(what: string, err: unknown): Error {
  const coded = failed(
    `The server ${what}: its asset storage is unavailable or full. Try again later; if it keeps failing, the server's operator should check its disk.`,
  );
  coded.cause = err;
  return coded;
}
