/**
 * The codes the action contract lists (shared/sandbox/codes.ts) are the codes the sandbox and the gate
 * produce: read off their source, every code named there is listed, and every listed code is named
 * there. The contract's text lists them from the same constants, and states the real result cap.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../shared/protocol/errors.ts";
import { ACTION_ERROR_CODES, CALL_ERROR_CODES } from "../../shared/sandbox/codes.ts";
import { actionContract } from "../../shared/sandbox/contract.ts";
import { MAX_RESULT_CHARS } from "../../shared/sandbox/limits.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Where calls are refused or fail (dispatcher, ladder, packs, the worker) and where actions end. */
const PRODUCERS = [
  "shared/gate",
  "shared/sandbox/dispatch.ts",
  "shared/sandbox/coerce.ts",
  "shared/sandbox/imports.ts",
  "worker/host",
  "worker/guest",
  "server-bridge/sandbox",
  "server-bridge/calls/router.ts",
  "server-bridge/packs/dispatch.ts",
];

function files(path: string): string[] {
  const full = join(ROOT, path);
  if (path.endsWith(".ts") || path.endsWith(".js")) return [full];
  return readdirSync(full)
    .filter((f) => f.endsWith(".ts") || f.endsWith(".js"))
    .map((f) => join(full, f));
}

function producedCodes(): Set<string> {
  const known = new Set<string>(ERROR_CODES);
  const found = new Set<string>();
  for (const file of PRODUCERS.flatMap(files)) {
    // Code, not comments: a comment may name a code the file does not produce.
    const source = readFileSync(file, "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "");
    for (const [, literal] of source.matchAll(/"([a-z_]+)"/g))
      if (known.has(literal as string)) found.add(literal as string);
  }
  return found;
}

describe("the error codes of the action contract", () => {
  it("are exactly the codes the sandbox and the gate produce", () => {
    const listed = new Set<string>([...CALL_ERROR_CODES, ...ACTION_ERROR_CODES]);
    expect([...producedCodes()].sort()).toEqual([...listed].sort());
  });

  it("are the ones its text names", () => {
    const text = actionContract({ mounted: ["workflows"], packs: [] });
    expect(text).toContain(CALL_ERROR_CODES.join(", "));
    expect(text).toContain(ACTION_ERROR_CODES.join(", "));
    expect(text).toContain(`at most ${MAX_RESULT_CHARS / 1024} KiB of JSON`);
  });
});
