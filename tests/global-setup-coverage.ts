/**
 * Capability coverage: every capability's real result must have passed its output schema somewhere in
 * the suite. Setup makes a temp directory and names it in the environment every test fork and every
 * server process they start inherits (server-bridge/capabilities/output-check.ts writes the names there);
 * teardown reads them after a full run (every test file ran) and fails naming each capability no test
 * exercised. A partial run (a file or a filter) skips the check and says so. An empty directory after a
 * full run fails too: it means no name was ever recorded, so the check can never pass vacuously.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { CHECK_OUTPUTS_ENV, COVERAGE_DIR_ENV } from "../server-bridge/capabilities/output-check.ts";
import { allSpecs } from "../shared/capabilities/table.ts";

/** The names recorded in a coverage directory, by every process that wrote there. */
export function recordedNames(dir: string): Set<string> {
  const names = new Set<string>();
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) if (line) names.add(line);
  }
  return names;
}

/** Capabilities of the table that no recorded name covers, in table order. */
export function unexercised(recorded: ReadonlySet<string>): string[] {
  return allSpecs()
    .map((spec) => spec.name)
    .filter((name) => !recorded.has(name));
}

/** Where the verdict goes: a failure fails the run, a note is only printed. */
export interface CoverageReport {
  fail(reason: string): void;
  note(text: string): void;
}

/**
 * Failing is `process.exitCode = 1` with the reason on stderr: vitest reports an error thrown from a
 * global teardown but still exits 0.
 */
const consoleReport: CoverageReport = {
  fail(reason) {
    process.stderr.write(`capability coverage FAILED: ${reason}\n`);
    process.exitCode = 1;
  },
  note(text) {
    process.stdout.write(`capability coverage: ${text}\n`);
  },
};

/** The check at the end of a run, over what the processes recorded in `dir`. */
export async function checkCoverage(project: TestProject, dir: string, report: CoverageReport): Promise<void> {
  if (project.config.env[CHECK_OUTPUTS_ENV] !== "1") {
    report.fail(`${CHECK_OUTPUTS_ENV} is not "1" in vite.config.ts test.env, so no result was checked`);
    return;
  }
  const all = (await project.globTestFiles()).testFiles.map((file) => resolve(file));
  const ran = new Set(project.vitest.state.getFiles().map((file) => resolve(file.filepath)));
  const skipped = all.filter((file) => !ran.has(file));
  const missing = unexercised(recordedNames(dir));
  if (skipped.length > 0) {
    const names = missing.length <= 10 ? `: ${missing.join(", ") || "none"}` : "";
    report.note(
      `not checked (${skipped.length} test files did not run); ${missing.length} capabilities not exercised by this run${names}`,
    );
    return;
  }
  if (missing.length > 0) {
    report.fail(
      `${missing.length} capabilities were never called with their output checked: ${missing.join(", ")}. Add a test that calls each one for real.`,
    );
    return;
  }
  report.note(`all ${allSpecs().length} capabilities exercised`);
}

export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "nt-coverage-"));
  process.env[COVERAGE_DIR_ENV] = dir;
  return async () => {
    try {
      await checkCoverage(project, dir, consoleReport);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
