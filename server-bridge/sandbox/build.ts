/**
 * Builds the Node worker entry (worker/entry-node.ts) into one ES module Node can start as a thread:
 * Node cannot start a `.ts` file as a worker, and the guest sources are imported with `?raw`. Rebuilt
 * when missing or older than its sources; the test setup and `npm start` call this.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..", "..");
export const NODE_WORKER_FILE = join(ROOT, "dist", "sandbox", "entry-node.mjs");

function newest(dir: string): number {
  let mtime = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    mtime = Math.max(mtime, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return mtime;
}

function stale(outfile: string): boolean {
  if (!existsSync(outfile)) return true;
  const built = statSync(outfile).mtimeMs;
  return ["worker", "shared"].some((dir) => newest(join(ROOT, dir)) > built);
}

export async function buildNodeWorker(options: { outfile?: string; force?: boolean } = {}): Promise<string> {
  const outfile = options.outfile ?? NODE_WORKER_FILE;
  if (!options.force && !stale(outfile)) return outfile;
  const esbuild = await import("esbuild");
  await esbuild.build({
    entryPoints: [join(ROOT, "worker", "entry-node.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Resolved from node_modules at run time: the variant finds its own emscripten module this way.
    external: ["quickjs-emscripten-core", "@jitl/*", "zod", "acorn"],
    logLevel: "warning",
    plugins: [
      {
        name: "raw",
        setup(build) {
          build.onResolve({ filter: /\?raw$/ }, (args) => ({
            path: resolve(args.resolveDir, args.path.slice(0, -"?raw".length)),
            namespace: "raw",
          }));
          build.onLoad({ filter: /.*/, namespace: "raw" }, async (args) => ({
            contents: await readFile(args.path, "utf8"),
            loader: "text",
          }));
        },
      },
    ],
  });
  return outfile;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  await buildNodeWorker({ force: true });
}
