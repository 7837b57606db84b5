/**
 * Builds what `npm start` and the tests serve when it is missing or older than its sources: the page
 * (Vite, into dist/web). Quiet when everything is fresh.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function stale(output: string, sources: string[]): boolean {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return sources.some((dir) => existsSync(dir) && newestMtime(dir) > built);
}

export async function buildWebIfStale(log: (line: string) => void = () => {}): Promise<string> {
  const outDir = join(ROOT, "dist", "web");
  const sources = ["web", "shared", "worker"].map((d) => join(ROOT, d));
  if (stale(join(outDir, "index.html"), sources)) {
    log("building the page (vite build)…");
    const { build } = await import("vite");
    // Test runners set NODE_ENV=test, which would give a development React build: serve what users get.
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = "production";
    try {
      await build({ configFile: join(ROOT, "vite.config.ts"), logLevel: "warn", mode: "production" });
    } finally {
      process.env.NODE_ENV = previous;
    }
  }
  return outDir;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  await buildWebIfStale((line) => process.stderr.write(`${line}\n`));
}
