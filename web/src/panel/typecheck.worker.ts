/**
 * The type-check worker: TypeScript 6's compiler (the `typescript6` alias) and its standard library
 * files, loaded only when the page first asks for a check, never part of the main bundle. Each request
 * is parsed before use; an unexpected failure is answered as `failed`, never thrown away.
 */
import ts from "typescript6";
import { createTypeChecker } from "./typecheck-core.ts";
import { CheckRequest, type CheckResponse } from "./typecheck-protocol.ts";

// The ES standard library the sandbox offers (no DOM: an action has no document, no fetch).
const sources = import.meta.glob(
  [
    "../../../node_modules/typescript6/lib/lib.es5.d.ts",
    "../../../node_modules/typescript6/lib/lib.es20*.d.ts",
    "../../../node_modules/typescript6/lib/lib.decorators*.d.ts",
  ],
  { query: "?raw", import: "default", eager: true },
) as Record<string, string>;
const libs = new Map(Object.entries(sources).map(([path, text]) => [path.slice(path.lastIndexOf("/") + 1), text]));
const checker = createTypeChecker(ts, libs);

self.addEventListener("message", (event: MessageEvent<unknown>) => {
  const request = CheckRequest.safeParse(event.data);
  if (!request.success) return;
  const { id, code, declarations } = request.data;
  let answer: CheckResponse;
  try {
    answer = { type: "checked", id, problems: checker.check(code, declarations) };
  } catch (err) {
    answer = { type: "failed", id, message: err instanceof Error ? err.message : "the check failed" };
  }
  self.postMessage(answer);
});
