import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

const here = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root: "web",
  plugins: [react()],
  build: {
    outDir: "../dist/web",
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 2000,
    rolldownOptions: {
      input: { index: "web/index.html", embed: "web/embed.html" },
      // `npm start` builds the page first: no note to the person about how long plugins took.
      checks: { bundlerTimings: false },
    },
  },
  worker: {
    format: "es",
    rolldownOptions: {
      output: { entryFileNames: "assets/worker-[name]-[hash].js" },
      checks: { bundlerTimings: false },
    },
  },
  test: {
    root: here,
    include: ["tests/**/*.test.ts", "shared/**/*.test.ts", "worker/**/*.test.ts", "server-bridge/**/*.test.ts"],
    globalSetup: ["tests/global-setup.ts", "tests/global-setup-web.ts", "tests/global-setup-coverage.ts"],
    // Every capability result is parsed with its spec's output schema (server-bridge/capabilities/output-check.ts).
    env: { CHECK_CAPABILITY_OUTPUTS: "1" },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
