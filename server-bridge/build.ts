/**
 * Builds what `npm start` and the tests serve when it is missing or older than its sources: the app's
 * and the widget's pages (Vite, into dist/web), and the widget's host SDK (`embed/sdk.js`, one
 * self-contained ES module a page of another site imports, and `embed/sdk.d.ts`: the SDK's types file
 * as it is, plus the declaration of `mountAgentWidget`). Quiet when everything is fresh.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
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
      await buildSdk(join(outDir, "embed"));
    } finally {
      process.env.NODE_ENV = previous;
    }
  }
  return outDir;
}

/** The SDK: Vite's library build (one file, nothing shared with the app's chunks), then its types. */
async function buildSdk(dir: string): Promise<void> {
  const { build } = await import("vite");
  const source = join(ROOT, "web", "src", "embed");
  await build({
    configFile: false,
    root: ROOT,
    logLevel: "warn",
    mode: "production",
    build: {
      outDir: dir,
      emptyOutDir: true,
      target: "es2022",
      minify: true,
      lib: { entry: join(source, "sdk.ts"), formats: ["es"], fileName: () => "sdk.js" },
    },
  });
  mkdirSync(dir, { recursive: true });
  // The source's own header speaks to this repository's readers; an integrator gets one of their own.
  const types = readFileSync(join(source, "sdk-api.ts"), "utf8").replace(/^\/\*\*[\s\S]*?\*\/\n/, "");
  writeFileSync(
    join(dir, "sdk.d.ts"),
    `${SDK_TYPES_HEADER}${types}\nexport declare const mountAgentWidget: MountAgentWidget;\n`,
  );
}

const SDK_TYPES_HEADER = `/**
 * Types of the agent widget's host SDK: \`import { mountAgentWidget } from "<server>/embed/sdk.js"\`.
 * The README's "Embed it" section says how to register a widget, mint a token and mount it.
 */
`;

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  await buildWebIfStale((line) => process.stderr.write(`${line}\n`));
}
