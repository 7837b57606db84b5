/**
 * The ladder's output check on the server's runs: off in production, on in tests. The test setup turns
 * it on through the environment (vite.config.ts `test.env`), so every server a test starts, in its own
 * process or in a child (CLI, stdio MCP, the recovery test's server), parses each capability result with
 * its spec's `output`. When `CAPABILITY_COVERAGE_DIR` is set too, each process appends the names whose
 * results passed to its own file there; tests/global-setup-coverage.ts reads them all at the end of a
 * full run and fails when some capability was never exercised.
 *
 * Read from `process.env` directly, not from the server's config: this is a test instrument, not a
 * setting, and the test servers are built from an empty environment.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { RunHost } from "../../shared/gate/invoke.ts";

export const CHECK_OUTPUTS_ENV = "CHECK_CAPABILITY_OUTPUTS";
export const COVERAGE_DIR_ENV = "CAPABILITY_COVERAGE_DIR";

type OutputCheck = NonNullable<RunHost<unknown>["outputCheck"]>;

/** The check an environment asks for, or undefined when it is off. */
export function outputCheckFrom(env: NodeJS.ProcessEnv): OutputCheck | undefined {
  if (env[CHECK_OUTPUTS_ENV] !== "1") return undefined;
  const dir = env[COVERAGE_DIR_ENV];
  if (!dir) return {};
  const file = join(dir, `${process.pid}.txt`);
  const seen = new Set<string>();
  return {
    passed(capability) {
      if (seen.has(capability)) return;
      seen.add(capability);
      appendFileSync(file, `${capability}\n`);
    },
  };
}

/** This process's check, shared by every run it starts. */
export const OUTPUT_CHECK = outputCheckFrom(process.env);
