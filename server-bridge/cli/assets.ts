/**
 * `assets check`, `assets copy [--from <data dir>]` and `assets sweep [--dry-run]`: for an operator
 * moving asset bytes to a bucket (`ASSET_S3_BUCKET`) or between servers, and tidying it. `check` asks
 * the configured storage for the bytes of every content a row names and lists the assets whose bytes
 * are not there; `copy` writes, into the configured storage, every such content it finds on disk under
 * the given data directory (default `$DATA_DIR`), checked against its hash on the way; `sweep` removes
 * the bytes no asset names (left by a removal the storage failed to confirm, or by a copy of assets
 * since deleted). All print JSON on stdout and progress on stderr, and may be stopped and run again.
 * Exit codes: 0 every asset has its bytes (for sweep: done), 1 some do not, 2 usage, 3 the storage did
 * not answer (nothing was judged missing).
 */
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import type { AppServices } from "../app-services.ts";
import { DiskBlobs, storageFailure } from "../assets/blobs.ts";
import type { Io } from "./io.ts";

export const ASSETS_USAGE = [
  "usage: assets check | assets copy [--from <data dir>] | assets sweep [--dry-run]",
  "exit: 0 every asset has its bytes, 1 some do not (listed), 2 usage, 3 the storage did not answer",
].join("\n");

interface Missing {
  id: string;
  user_id: string;
  name: string;
}

/** Progress on stderr: every this many contents, and at the end. */
const EVERY = 100;

export async function assetsCommand(
  argv: readonly string[],
  app: Pick<AppServices, "store" | "assets" | "config">,
  io: Io,
): Promise<number> {
  const [verb, ...rest] = argv;
  const { blobs } = app.assets;
  if (verb === "sweep" && (rest.length === 0 || (rest.length === 1 && rest[0] === "--dry-run"))) {
    return await sweep(app, io, rest.length === 1);
  }
  const from =
    verb === "copy" && rest.length === 2 && rest[0] === "--from" ? rest[1] : rest.length === 0 ? undefined : null;
  if ((verb !== "check" && verb !== "copy") || from === null) {
    io.stderr.write(`${ASSETS_USAGE}\n`);
    return 2;
  }
  const source = new DiskBlobs(join(resolve(from ?? app.config.dataDir), "assets"));
  if (verb === "copy" && source.where === blobs.where) {
    io.stderr.write(
      `The assets are already kept in ${blobs.where}: set ASSET_S3_BUCKET (or --from another data directory).\n`,
    );
    return 2;
  }
  return await judge(verb, source, app, io).catch((err: unknown) => notAnswering(blobs.where, err, io));
}

/** The storage failed (down, wrong keys, no such bucket): nothing is judged missing on its word. */
function notAnswering(where: string, err: unknown, io: Io): number {
  io.stderr.write(`${where} did not answer (${storageFailure(err)}); nothing was judged missing.\n`);
  return 3;
}

/**
 * Every content in the storage that no asset names is removed (or, with `dryRun`, counted), each in a
 * transaction that looks again, so a save naming it meanwhile keeps it. A failure part-way says what
 * was done before it (exit 3); run again, the sweep goes on from what is left.
 */
async function sweep(app: Pick<AppServices, "store" | "assets">, io: Io, dryRun: boolean): Promise<number> {
  const { blobs } = app.assets;
  const counts = { listed: 0, unnamed: 0, removed: 0 };
  const report = (extra: Record<string, string> = {}) => {
    const { listed, unnamed, removed } = counts;
    const named = listed - unnamed;
    io.stdout.write(
      `${JSON.stringify({ storage: blobs.where, listed, named, unnamed, removed, dry_run: dryRun, ...extra })}\n`,
    );
  };
  try {
    await blobs.check();
    const rows = (await app.store.sql("SELECT DISTINCT sha256 FROM assets").all()) as { sha256: string }[];
    const named = new Set(rows.map((r) => r.sha256));
    for await (const sha256 of blobs.list()) {
      counts.listed++;
      if (!named.has(sha256)) {
        counts.unnamed++;
        if (!dryRun && (await app.assets.removeIfUnnamed(sha256))) counts.removed++;
      }
      if (counts.listed % EVERY === 0) io.stderr.write(`${counts.listed} contents looked at in ${blobs.where}\n`);
    }
  } catch (err) {
    // The storage or the store failed: what was removed before is said; nothing more is judged.
    const reason = storageFailure(err);
    report({ failed: reason });
    io.stderr.write(
      `The sweep stopped after ${counts.listed} contents looked at in ${blobs.where} and ${counts.removed} removed: ${reason}. Run it again once that is mended.\n`,
    );
    return 3;
  }
  report();
  const { listed, unnamed, removed } = counts;
  io.stderr.write(
    dryRun
      ? `${unnamed} of ${listed} contents in ${blobs.where} are named by no asset; run without --dry-run to remove them.\n`
      : `${removed} of ${listed} contents in ${blobs.where} removed: no asset named them.\n`,
  );
  return 0;
}

async function judge(
  verb: "check" | "copy",
  source: DiskBlobs,
  app: Pick<AppServices, "store" | "assets">,
  io: Io,
): Promise<number> {
  const { blobs } = app.assets;
  await blobs.check();
  const contents = (await app.store.sql("SELECT DISTINCT sha256 FROM assets ORDER BY sha256").all()) as {
    sha256: string;
  }[];
  const lacking: string[] = [];
  let copied = 0;
  let present = 0;
  for (const [i, { sha256 }] of contents.entries()) {
    if (await blobs.has(sha256)) present++;
    else if (verb === "copy" && (await copy(sha256))) copied++;
    else lacking.push(sha256);
    if ((i + 1) % EVERY === 0 || i + 1 === contents.length) {
      io.stderr.write(`${i + 1}/${contents.length} contents looked at in ${blobs.where}\n`);
    }
  }

  async function copy(sha256: string): Promise<boolean> {
    const bytes = await source.read(sha256);
    // A file whose bytes are not its name (damaged on disk) is not copied: it stays missing.
    if (!bytes || createHash("sha256").update(bytes).digest("hex") !== sha256) return false;
    await blobs.put(sha256, bytes);
    return true;
  }

  const missing: Missing[] = [];
  for (const sha256 of lacking) {
    const rows = (await app.store
      .sql("SELECT id, user_id, name FROM assets WHERE sha256 = ? ORDER BY created_at")
      .all(sha256)) as Missing[];
    missing.push(...rows);
  }
  const counts = { contents: contents.length, present, ...(verb === "copy" ? { copied, from: source.where } : {}) };
  io.stdout.write(`${JSON.stringify({ storage: blobs.where, ...counts, missing })}\n`);
  if (missing.length > 0) {
    io.stderr.write(
      `${missing.length} asset(s) have no bytes in ${blobs.where}${verb === "copy" ? ` nor in ${source.where}` : ""}: they answer 404 until saved again.\n`,
    );
  }
  return missing.length > 0 ? 1 : 0;
}
